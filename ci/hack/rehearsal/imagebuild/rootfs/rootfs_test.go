package rootfs

import (
	"strings"
	"testing"
)

func TestArgsKeepPackagesInTheCache(t *testing.T) {
	s := Spec{Name: "n", Suite: "bookworm", Variant: "minbase", Include: []string{"systemd", "containerd"}}
	got := strings.Join(s.args("/cache/debs", "/t"), " ")
	if want := "--variant=minbase --cache-dir=/cache/debs --include=systemd,containerd bookworm /t " + defaultMirror; got != want {
		t.Errorf("args %q, want %q", got, want)
	}
}

func TestKeyFollowsThePackages(t *testing.T) {
	a := Spec{Name: "n", Suite: "bookworm", Variant: "minbase", Include: []string{"systemd"}}
	b := a
	b.Include = []string{"systemd", "jq"}
	if a.Key() == b.Key() {
		t.Error("another package set keeps the key")
	}
	if !strings.HasPrefix(a.ImageRef(), "gpu-lab-rehearsal/rootfs-n:") {
		t.Errorf("image ref %s", a.ImageRef())
	}
}
