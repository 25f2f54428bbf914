package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The cache key follows the build module's content and the Go version, so a
// changed pin or source builds afresh and an unchanged one never does.
func TestCacheKeyFollowsModuleContent(t *testing.T) {
	src := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("go.sum", "")
	write("cmd/a/main.go", "package main\n")
	key := func(goVersion string) string {
		k, err := cacheKey(src, goVersion)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	base := key("go1.26.8")
	if !strings.HasPrefix(base, KubernetesVersion+"-") {
		t.Errorf("key %q does not start with the Kubernetes version", base)
	}
	if again := key("go1.26.8"); again != base {
		t.Errorf("key not stable: %s then %s", base, again)
	}
	if other := key("go1.27.0"); other == base {
		t.Error("key ignores the Go version")
	}
	write("README.md", "docs do not change binaries")
	if k := key("go1.26.8"); k != base {
		t.Error("key changed for a non-Go file")
	}
	write("cmd/a/main.go", "package main\n\nfunc main() {}\n")
	if k := key("go1.26.8"); k == base {
		t.Error("key ignores a source change")
	}
	write("go.sum", "k8s.io/kubernetes v1.36.3 h1:x\n")
	if k := key("go1.26.8"); k == base {
		t.Error("key ignores go.sum")
	}
}

func TestLdflagsStampVersion(t *testing.T) {
	f := ldflags()
	for _, want := range []string{
		"-X k8s.io/component-base/version.gitVersion=" + KubernetesVersion,
		"-X k8s.io/component-base/version.gitMinor=36",
		"-X k8s.io/client-go/pkg/version.gitVersion=" + KubernetesVersion,
		"-s -w",
	} {
		if !strings.Contains(f, want) {
			t.Errorf("ldflags %q lack %q", f, want)
		}
	}
}
