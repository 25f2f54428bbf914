package lab

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the lab-file reference block in README.md")

const (
	readmeStart = "<!-- lab-reference:start -->\n"
	readmeEnd   = "<!-- lab-reference:end -->"
)

// TestReadmeReference keeps README.md's lab-file reference equal to
// Reference(). Regenerate with: go test ./ci/lab -run TestReadme -update
func TestReadmeReference(t *testing.T) {
	ref, err := Reference()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "README.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i, j := strings.Index(s, readmeStart), strings.Index(s, readmeEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the %q ... %q markers", strings.TrimSpace(readmeStart), readmeEnd)
	}
	got := s[i+len(readmeStart) : j]
	if got == ref {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(s[:i+len(readmeStart)]+ref+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's lab-file reference is out of date: run go test ./ci/lab -run TestReadme -update\n--- README ---\n%s\n--- generated ---\n%s", got, ref)
}

func TestReferenceCoversEveryField(t *testing.T) {
	ref, err := Reference()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`tenants[].workers[].gpus[].memoryMB`", "`versions.konnectivity`", "`hami.nodeLockTimeout`", "| `A100-80GB` | 81920 |", "| `L4` | 24576 |"} {
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
