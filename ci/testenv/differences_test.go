package testenv

import (
	"flag"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/internal/readmeblock"
)

var update = flag.Bool("update", false, "rewrite the table of differences in ci/testenv/README.md")

// ci/testenv/README.md's table of differences is generated from differences, and the
// backend line of every report names each of them.
func TestDifferencesAreListedOnce(t *testing.T) {
	want := differencesMarkdown()
	got, stale, err := readmeblock.Sync("README.md", "testenv-differences", want, *update)
	if err != nil {
		t.Fatal(err)
	}
	if stale {
		t.Errorf("ci/testenv/README.md's differences table is out of date: run go test ./ci/testenv -run TestDifferences -update\n"+
			"--- README ---\n%s\n--- generated ---\n%s", got, want)
	}
	for _, d := range differences {
		if d.Short == "" || d.Real == "" || d.Local == "" || d.Why == "" {
			t.Errorf("difference %+v lacks a field", d)
		}
		if !strings.Contains(Backend, d.Short) {
			t.Errorf("Backend %q does not name %q", Backend, d.Short)
		}
	}
}
