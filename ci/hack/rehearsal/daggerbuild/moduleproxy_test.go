package daggerbuild

import (
	"os"
	"path/filepath"
	"testing"
)

// The proxy tree is made from copies of the repository's go.mod and
// go.sum: copyModFiles copies both and leaves the module alone.
func TestCopyModFilesLeavesTheModuleAlone(t *testing.T) {
	mod, dir := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	for f, data := range map[string]string{"go.mod": "module x\n", "go.sum": "a v1 h1:x=\n"} {
		if err := os.WriteFile(filepath.Join(mod, f), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := copyModFiles(mod, dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(mod, "go.sum")); string(b) != "a v1 h1:x=\n" {
		t.Errorf("the module's go.sum changed with its copy: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "go.mod")); string(b) != "module x\n" {
		t.Errorf("go.mod not copied: %q", b)
	}
}
