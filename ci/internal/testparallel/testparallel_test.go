package testparallel

import (
	"flag"
	"io"
	"testing"
)

func TestDefault(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"not given: the package's default", nil, 8},
		{"given: the command line wins", []string{"-test.parallel=3"}, 3},
		{"given as go test's default value: still wins", []string{"-test.parallel=2"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			p := fs.Int("test.parallel", 2, "")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if err := Default(fs, 8); err != nil {
				t.Fatal(err)
			}
			if *p != tc.want {
				t.Errorf("-test.parallel = %d, want %d", *p, tc.want)
			}
		})
	}
}

// A flag set without -test.parallel is an error naming the flag, not a
// silent no-op.
func TestDefaultWithoutTheFlag(t *testing.T) {
	if err := Default(flag.NewFlagSet("test", flag.ContinueOnError), 8); err == nil {
		t.Error("Default succeeded on a flag set without -test.parallel")
	}
}
