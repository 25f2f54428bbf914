package labcmd

import (
	"strings"
	"testing"
)

func TestSuiteCheck(t *testing.T) {
	tests := []struct {
		name    string
		suite   Suite
		wantErr []string // substrings, all in one error
	}{
		{name: "defaults", suite: Suite{}},
		{name: "valid", suite: Suite{Run: "TC-0[1-8]", Parallel: 4}},
		{name: "bad regexp", suite: Suite{Run: "TC-0[1-"}, wantErr: []string{"--run", "TC-0[1-", "regular expression"}},
		{name: "negative parallel", suite: Suite{Parallel: -1}, wantErr: []string{"--parallel -1"}},
		{name: "both at once", suite: Suite{Run: "(", Parallel: -2}, wantErr: []string{"--run", "--parallel -2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.suite.Check()
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one mentioning %q", tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
