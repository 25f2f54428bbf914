package bincache

import (
	"os"
	"path/filepath"
	"testing"
)

// Both builds find their sources from this package's own directory in a
// checkout (ci/testenv/bincache), wherever go test runs it from: the
// nested module beside it and the root module three levels up.
func TestSourcesFoundFromThisPackage(t *testing.T) {
	t.Setenv(envSourceDir, "")
	t.Chdir(t.TempDir()) // not under the checkout: only the source location helps
	src, err := sourceDir()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(src) != "k8sbin" || filepath.Base(filepath.Dir(src)) != "testenv" {
		t.Errorf("sourceDir = %s, want ci/testenv/k8sbin", src)
	}
	root, err := rootModuleDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "ci", "testenv", "bincache", "doc.go")); err != nil {
		t.Errorf("rootModuleDir = %s, not this checkout: %v", root, err)
	}
}
