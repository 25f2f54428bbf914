package imagebuild

import (
	"context"
	"errors"
	"os"
	"os/exec"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/preflight"
)

// minFreeDisk is the free space Build asks of the cache's file system
// before it starts. A floor, not a measurement of a cold build: the seed
// lab's bundle alone is 2.68 GiB (ci/hack/rehearsal/testdata/runs/2026-12-02-
// seed-lab), and the Go build and module caches of one Kubernetes build
// take several more.
const minFreeDisk = 20 << 30

// host is what the prerequisite checks read of the machine; the zero value
// is the real one.
type host struct {
	lookPath func(string) (string, error)
	uid      func() int
	ping     func(context.Context) error
	free     func(string) (uint64, error)
}

func (h host) orReal(d interface {
	Ping(context.Context) (string, error)
}) host {
	if h.lookPath == nil {
		h.lookPath = exec.LookPath
	}
	if h.uid == nil {
		h.uid = os.Geteuid
	}
	if h.free == nil {
		h.free = preflight.Free
	}
	if h.ping == nil {
		h.ping = func(ctx context.Context) error { _, err := d.Ping(ctx); return err }
	}
	return h
}

// prerequisites checks everything a run of o needs before it starts:
// every program it runs (found by name in $PATH), root, the Docker daemon,
// and MinFreeDisk in the cache; the error names each missing one and how
// to get it.
func prerequisites(ctx context.Context, o Options) error {
	h := o.host.orReal(o.Docker)
	tools := []preflight.Tool{preflight.Debootstrap, preflight.Tar, preflight.Docker}
	if !o.BasesOnly {
		tools = append(tools, preflight.Git, preflight.Go, preflight.Gcc, preflight.Strip, preflight.Bash, preflight.Cp)
	}
	root := o.Root
	if root == "" {
		root = os.TempDir()
	}
	return preflight.Run(ctx, "rehearse images",
		preflight.Tools(h.lookPath, tools...),
		preflight.Root(h.uid(), "debootstrap makes the root file systems as root"),
		preflight.Daemon(h.ping),
		preflight.FreeDisk(h.free, root, minFreeDisk, "--cache"),
	)
}

// errNotStarted is each image's error when the run did not start.
var errNotStarted = errors.New("not started: prerequisites missing (above)")

// notStarted is the report of a run that did not start: every image of the
// plan not built, the reason first.
func notStarted(plan Plan, err error) Report {
	rep := Report{Stopped: err}
	seen := map[string]bool{}
	for _, r := range append(append(append([]recipe(nil), plan.Nodes...), plan.Bundle...), plan.Extra...) {
		if !seen[r.Ref] {
			seen[r.Ref] = true
			rep.Results = append(rep.Results, Result{Ref: r.Ref, Kind: r.Kind, Err: errNotStarted})
		}
	}
	return rep
}
