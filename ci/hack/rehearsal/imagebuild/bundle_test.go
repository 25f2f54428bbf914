package imagebuild

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// A built node image enters the bundle under its pinned reference, with
// the local image's ID; an unbuilt image does not enter at all.
func TestBundleEntriesKeepThePinnedReference(t *testing.T) {
	node := "kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5"
	p := Plan{Nodes: []recipe{recipeFor(node)}, Bundle: []recipe{recipeFor("registry.k8s.io/coredns/coredns:v1.14.2"),
		recipeFor("clastix/kamaji:26.8.2-edge")}}
	rep := Report{Results: []Result{
		{Ref: node, Local: "kindest/node:v1.37.0", ID: "sha256:n"},
		{Ref: "registry.k8s.io/coredns/coredns:v1.14.2", Local: "registry.k8s.io/coredns/coredns:v1.14.2", ID: "sha256:c"},
		{Ref: "clastix/kamaji:26.8.2-edge", Err: errors.New("not served")},
		{Ref: "docker.io/kindest/kindnetd:v1", ID: "sha256:k"}, // preloaded only
	}}
	got := bundleEntries(p, rep)
	want := []images.Entry{
		{Ref: node, File: images.ArchiveName(node), ID: "sha256:n"},
		{Ref: "registry.k8s.io/coredns/coredns:v1.14.2", File: images.ArchiveName("registry.k8s.io/coredns/coredns:v1.14.2"), ID: "sha256:c"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BundleEntries = %+v, want %+v", got, want)
	}
}

// Charts and images the rehearsal did not build stay; a rebuilt image
// replaces its entry in place.
func TestMergeIndexCompletesABundle(t *testing.T) {
	old := images.Index{
		Images: []images.Entry{{Ref: "clastix/kamaji:26.8.2-edge", File: "k.tar", ID: "sha256:k"},
			{Ref: "registry.k8s.io/coredns/coredns:v1.14.2", File: "c.tar", ID: "sha256:old"}},
		Charts: []images.ChartEntry{{File: "hami.tgz"}},
	}
	got := mergeIndex(old, []images.Entry{{Ref: "registry.k8s.io/coredns/coredns:v1.14.2", File: "c.tar", ID: "sha256:new"},
		{Ref: "registry.k8s.io/pause:3.10", File: "p.tar", ID: "sha256:p"}})
	want := images.Index{
		Images: []images.Entry{{Ref: "clastix/kamaji:26.8.2-edge", File: "k.tar", ID: "sha256:k"},
			{Ref: "registry.k8s.io/coredns/coredns:v1.14.2", File: "c.tar", ID: "sha256:new"},
			{Ref: "registry.k8s.io/pause:3.10", File: "p.tar", ID: "sha256:p"}},
		Charts: old.Charts,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MergeIndex = %+v, want %+v", got, want)
	}
}

func TestReportNamesWhatFailedAndItsLog(t *testing.T) {
	rep := Report{Results: []Result{
		{Ref: "a:1", Kind: kindCoreDNS, ID: "sha256:0123456789abcdef", Took: 90e9},
		{Ref: "b:1", Kind: kindUnsupported, Err: errors.New("no recipe"), Log: "/logs/b.log"},
	}, Differences: differences(Plan{Nodes: []recipe{recipeFor("kindest/node:v1.36.4@sha256:0")}})}
	var b strings.Builder
	rep.Write(&b)
	out := b.String()
	for _, w := range []string{"built 0123456789ab in 1m30s", "NOT BUILT: no recipe (log /logs/b.log)",
		"kindest/node:v1.36.4@sha256:0 is built locally as kindest/node:v1.36.4", "kubelet is linked statically"} {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q:\n%s", w, out)
		}
	}
	if f := rep.Failed(); len(f) != 1 || f[0].Ref != "b:1" {
		t.Errorf("Failed = %+v", f)
	}
}

// saver writes a fixed archive for any reference.
type saver string

func (s saver) Save(_ context.Context, _ string, w io.Writer) error {
	_, err := io.WriteString(w, string(s))
	return err
}

// issue 38: a symbolic link planted at "<archive>.partial" in the bundle
// directory does not redirect the root-run save into another file.
func TestSaveIgnoresAPlantedPartialFile(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "image.tar")
	if err := os.Symlink(victim, dst+".partial"); err != nil {
		t.Fatal(err)
	}
	if err := save(context.Background(), saver("image"), "ref", dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the planted link's target now holds %q", b)
	}
	if fi, err := os.Lstat(dst); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("%s is %v (%v), want a regular file", dst, fi, err)
	}
}
