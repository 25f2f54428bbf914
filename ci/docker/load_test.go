package docker

import (
	"os"
	"reflect"
	"testing"
)

// TestParseLoadOutput reads recorded `docker load` output
// (testdata/docker-load/README.md).
func TestParseLoadOutput(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"testdata/docker-load/tagged.txt", []string{"gpu-lab-rec/x:1"}},
		{"testdata/docker-load/by-id.txt", []string{"sha256:a9f6d2464cf882a53303126efff3e02b7a91c6b45face3dd43e1af27c1f04678"}},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := parseLoadOutput(string(b)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.file, got, tt.want)
		}
	}
}
