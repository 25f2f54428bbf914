package stages

import (
	"context"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/images"
)

// With a bundle, a node image the bundle lacks and the daemon does not
// have stops preflight naming the bundle and the image, without a pull
// (the rehearsal's finding of 2026-12-02); one the daemon already has, or
// one the bundle holds, goes on to the usual check.
func TestPreflightNamesTheBundleThatLacksANodeImage(t *testing.T) {
	e, d, _, _ := testEnv(t)
	d.pullErr = docker.ErrNoRegistry
	node := e.Lab.Versions.KindNodeImage
	e.Preload = &Preload{Dir: "/bundles/lab", Loaded: images.Loaded{}}
	_, err := Preflight(context.Background(), e, "")
	if err == nil || !strings.Contains(err.Error(), "the bundle /bundles/lab holds no "+node) ||
		strings.Contains(err.Error(), "registry access") {
		t.Fatalf("err = %v, want the bundle and the image named, no registry advice", err)
	}
	for _, c := range d.calls {
		if strings.HasPrefix(c, "ensure ") {
			t.Errorf("a pull was tried although the bundle was to bring the image: %v", d.calls)
		}
	}

	// Loaded by hand into the daemon: preflight takes it.
	d.images = map[string]bool{node: true}
	d.calls = nil
	_, err = Preflight(context.Background(), e, "cluster")
	if err != nil && strings.Contains(err.Error(), "holds no") {
		t.Fatalf("an image the daemon has was blamed on the bundle: %v", err)
	}
}
