package chartbuild

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// helm is built the way its Makefile builds it at v3.19.0.
func TestHelmProgram(t *testing.T) {
	p := helmProgram()
	if p.Module != "helm.sh/helm/v3" || p.Version != "v3.19.0" || len(p.Packages) != 1 || p.Packages[0] != "helm.sh/helm/v3/cmd/helm" {
		t.Errorf("program %+v", p)
	}
	if p.CGO || !p.Trimpath || len(p.Tags) != 0 {
		t.Errorf("CGO %v, trimpath %v, tags %v: the Makefile builds CGO_ENABLED=0 -trimpath without tags", p.CGO, p.Trimpath, p.Tags)
	}
	for _, want := range []string{"-w -s", "internal/version.version=v3.19.0", "internal/version.gitTreeState=clean",
		"pkg/chartutil.k8sVersionMajor=1", "pkg/chartutil.k8sVersionMinor=34", "pkg/lint/rules.k8sVersionMinor=34"} {
		if !strings.Contains(p.LDFlags, want) {
			t.Errorf("ldflags %q lack %q", p.LDFlags, want)
		}
	}
	if p.Name != "helm-v3.19.0" || !strings.Contains(p.GoMod(), "helm.sh/helm/v3 v3.19.0") {
		t.Errorf("name %s, go.mod:\n%s", p.Name, p.GoMod())
	}
}

func TestLinkHelm(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	root := t.TempDir()
	link := helmLink(root)
	if link != filepath.Join(root, "bin", "helm") {
		t.Fatalf("HelmLink = %s", link)
	}
	for _, target := range []string{"/cache/go/helm-old/bin/helm", "/cache/go/helm-new/bin/helm"} {
		if err := linkHelm(log, target, link); err != nil {
			t.Fatal(err)
		}
		if got, err := os.Readlink(link); err != nil || got != target {
			t.Errorf("link -> %q (%v), want %s", got, err, target)
		}
	}
	// A maintainer's own helm stays.
	os.Remove(link)
	os.WriteFile(link, []byte("#!/bin/sh\n"), 0o755)
	if err := linkHelm(log, "/cache/go/helm-new/bin/helm", link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink != 0 {
		t.Errorf("the maintainer's helm was replaced: %v %v", fi, err)
	}
}
