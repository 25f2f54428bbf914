package lab

import (
	"flag"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/internal/readmeblock"
)

var update = flag.Bool("update", false, "rewrite the lab-file reference block in ci/lab/README.md")

// TestReadmeReference keeps ci/lab/README.md's lab-file reference equal to
// fileReference(). Regenerate with: go test ./ci/lab -run TestReadme -update
func TestReadmeReference(t *testing.T) {
	ref, err := fileReference()
	if err != nil {
		t.Fatal(err)
	}
	got, stale, err := readmeblock.Sync("README.md", "lab-reference", ref, *update)
	if err != nil {
		t.Fatal(err)
	}
	if stale {
		t.Errorf("ci/lab/README.md's lab-file reference is out of date: run go test ./ci/lab -run TestReadme -update\n"+
			"--- README ---\n%s\n--- generated ---\n%s", got, ref)
	}
}

func TestReferenceCoversEveryField(t *testing.T) {
	ref, err := fileReference()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`tenants[].workers[].gpus[].memoryMB`", "`versions.konnectivity`",
		"`hami.nodeLockTimeout`", "| `A100-80GB` | 81920 |", "| `L4` | 24576 |"} {
		if !strings.Contains(ref, want) {
			t.Errorf("reference lacks %s", want)
		}
	}
	for path := range fieldDocs {
		if !strings.Contains(ref, "| `"+path+"` |") {
			t.Errorf("fieldDocs has %q, which is no field of the lab types", path)
		}
	}
}
