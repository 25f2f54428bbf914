package moduletest

import (
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/gpu-lab/labcmd"
)

// goPackage is what `go list -json` says of one package.
type goPackage struct {
	ImportPath string
	Dir        string
	Module     *struct{ Path string }
	EmbedFiles []string
}

// labctlInputs asks the Go toolchain which gpu-lab package directories
// labctl is built from and which files they embed, relative to the root.
func labctlInputs(t *testing.T) (dirs, embeds []string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-json", "./ci/cmd/labctl")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./ci/cmd/labctl: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Module == nil || p.Module.Path != "github.com/gpu-lab/gpu-lab" {
			continue
		}
		rel, err := filepath.Rel(root, p.Dir)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, filepath.ToSlash(rel))
		for _, e := range p.EmbedFiles {
			embeds = append(embeds, filepath.ToSlash(filepath.Join(rel, e)))
		}
	}
	slices.Sort(dirs)
	slices.Sort(embeds)
	return dirs, embeds
}

// The labctl build reads exactly the packages labctl is built from and the
// files they embed: a package labctl starts importing, or a new embedded
// file, must be added (the build would fail in the engine), and a package it
// no longer imports must go (its edits would rebuild labctl for nothing).
func TestLabctlBuildInputsAreWhatGoListSays(t *testing.T) {
	dirs, embeds := labctlInputs(t)
	if got := slices.Sorted(slices.Values(labcmd.LabctlPackages)); !slices.Equal(got, dirs) {
		t.Errorf("labcmd.LabctlPackages =\n  %q\nwant (go list -deps ./ci/cmd/labctl):\n  %q", got, dirs)
	}
	for _, e := range embeds {
		if !slices.ContainsFunc(labcmd.LabctlEmbeds, func(pat string) bool {
			ok, _ := filepath.Match(pat, e)
			return ok
		}) {
			t.Errorf("labctl embeds %s, which labcmd.LabctlEmbeds does not include", e)
		}
	}
	for _, pat := range labcmd.LabctlEmbeds {
		if !slices.ContainsFunc(embeds, func(e string) bool {
			ok, _ := filepath.Match(pat, e)
			return ok
		}) {
			t.Errorf("labcmd.LabctlEmbeds has %s, which labctl no longer embeds", pat)
		}
	}
	for _, in := range labcmd.BuildInclude {
		if strings.Contains(in, "testdata") || strings.HasSuffix(in, ".md") {
			t.Errorf("BuildInclude has %s: docs and testdata are no input of the build", in)
		}
	}
	if !slices.Contains(labcmd.BuildExclude, "**/*_test.go") {
		t.Error("BuildExclude lets test files into the labctl build")
	}
}
