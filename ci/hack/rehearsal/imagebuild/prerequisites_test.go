package imagebuild

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/docker"
)

// issue 41: with programs missing (here: an empty $PATH, so no
// debootstrap, go, git, docker …) the build does not start at all: the
// report says every missing one and how to get it, every image is not
// built, and nothing was written into the cache.
func TestBuildStartsNothingWithoutItsPrerequisites(t *testing.T) {
	plan := seedPlan(t)
	t.Setenv("PATH", t.TempDir())
	root := t.TempDir()
	rep := Build(context.Background(), Options{Root: root, Docker: docker.CLI{}}, plan)
	var out strings.Builder
	rep.Write(&out)
	for _, want := range []string{
		"debootstrap is not in $PATH", "apt-get install debootstrap",
		"go is not in $PATH", "git is not in $PATH", "strip is not in $PATH", "apt-get install binutils",
		"tar is not in $PATH", "the Docker daemon is not reachable",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, out.String())
		}
	}
	if got, want := len(rep.Failed()), len(plan.Nodes)+len(plan.Bundle); got < want {
		t.Errorf("%d images reported not built, the plan has %d", got, want)
	}
	if es, _ := os.ReadDir(root); len(es) > 0 {
		t.Errorf("the build started: the cache holds %v", es)
	}
}

// With everything there, nothing is reported (each check reads the host
// through o.host, the free disk too: the test must not depend on the
// machine's disk, which a rehearsal beside it fills).
func TestPrerequisitesOfAFullMachine(t *testing.T) {
	o := Options{Root: t.TempDir(), host: host{
		lookPath: func(n string) (string, error) { return "/usr/bin/" + n, nil },
		uid:      func() int { return 0 },
		ping:     func(context.Context) error { return nil },
		free:     func(string) (uint64, error) { return minFreeDisk, nil },
	}}
	if err := prerequisites(context.Background(), o); err != nil {
		t.Errorf("Prerequisites on a full machine: %v", err)
	}
	o.host.free = func(string) (uint64, error) { return minFreeDisk - 1, nil }
	if err := prerequisites(context.Background(), o); err == nil || !strings.Contains(err.Error(), "choose another directory with --cache") {
		t.Errorf("Prerequisites with a byte too little disk: %v", err)
	}
	o.host.free = func(string) (uint64, error) { return minFreeDisk, nil }
	o.host.uid = func() int { return 1000 }
	if err := prerequisites(context.Background(), o); err == nil || !strings.Contains(err.Error(), "run it with sudo") {
		t.Errorf("Prerequisites as uid 1000: %v", err)
	}
}

// issue 41: a node image whose preloads could not be built is an error
// naming them, and the node is not built short of them.
func TestNodeIsNotBuiltWithoutItsPreloads(t *testing.T) {
	b := &builder{ctx: context.Background(), o: Options{Log: slog.New(slog.DiscardHandler)}, results: map[string]*Result{
		"registry.k8s.io/pause:3.10": {Ref: "registry.k8s.io/pause:3.10", ID: "sha256:1", Local: "registry.k8s.io/pause:3.10"},
		"registry.k8s.io/kube-apiserver:v1.36.4": {Ref: "registry.k8s.io/kube-apiserver:v1.36.4",
			Err: errors.New("debootstrap: executable file not found in $PATH")},
	}}
	built, err := b.preloads([]string{"registry.k8s.io/pause:3.10", "registry.k8s.io/kube-apiserver:v1.36.4"})
	if err == nil || !strings.Contains(err.Error(), "kube-apiserver:v1.36.4") || built != nil {
		t.Errorf("preloads with one not built = %v, %v; want an error naming it", built, err)
	}
	built, err = b.preloads([]string{"registry.k8s.io/pause:3.10"})
	if err != nil || len(built) != 1 {
		t.Errorf("preloads all built = %v, %v", built, err)
	}
}
