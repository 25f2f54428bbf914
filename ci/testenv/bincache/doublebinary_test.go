package bincache

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Builds of other sources are removed once stale; the one just built, fresh
// ones (another checkout's, maybe in use) and the Kubernetes binaries stay.
func TestPruneDoubleBinaries(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-2 * staleDoubleBinary)
	for name, stale := range map[string]bool{
		"labctl-keep": true, "labctl-keep.lock": true, "labctl-old": true, "labctl-old.build.log": true,
		"labctl-fresh": false, "v1.36.3-abc": true, "hami-123": true,
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if stale {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	pruneDoubleBinaries(root, "labctl-keep")
	entries, _ := os.ReadDir(root)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{"hami-123", "labctl-fresh", "labctl-keep", "labctl-keep.lock", "v1.36.3-abc"}
	if !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}

// The build key follows labctl's sources: a changed file under ci/ changes
// it, a test file or testdata does not.
func TestLabctlKey(t *testing.T) {
	src := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("go.sum", "")
	write("ci/cmd/labctl/main.go", "package main\n")
	write("ci/lab/default-lab.yaml", "name: a\n")
	key := func() string {
		t.Helper()
		k, err := labctlKey(src, "go1.26.8")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	base := key()
	write("ci/lab/x_test.go", "package lab\n")
	write("ci/lab/testdata/big.json", "{}")
	write("ci/testenv/k8sbin/main.go", "package main\n")
	if k := key(); k != base {
		t.Errorf("a test file, testdata or the nested build module changed the key")
	}
	write("ci/lab/default-lab.yaml", "name: b\n")
	if k := key(); k == base {
		t.Errorf("an embedded file's change kept the key")
	}
	if k, _ := labctlKey(src, "go1.27.0"); k == key() {
		t.Errorf("another Go version kept the key")
	}
}
