package stages

import (
	"context"
	"slices"
	"sync"

	"github.com/sourcegraph/conc"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// Ahead of their stage (issue 42): once every worker of the lab has its own
// images, the workers stage imports the later stages' worker images (the
// hami stage's: HAMi, its certgen job, the mock NVML library) while its
// workers join. A join is mostly waiting — kubeadm's TLS bootstrap, the
// kubelet registering, the Node turning Ready, the tunnel — so the cores are
// free; on 2026-12-07's seed lab the hami stage spent its first 25 s of 51 s
// importing those images into both workers (labctl-up.log in
// ci/hack/rehearsal/testdata/runs/2026-12-07-seed-lab-preloads-side-by-side).
// The later stage's preload then finds them in place (nodeimage.Load skips
// an image a node lists) and imports only what is missing.
//
// These imports take the same preloadsAtOnce slots as the workers' own,
// and only after every worker's own import: a tenant still starting never
// waits behind another tenant's images for later. A failure here is logged
// and left to the stage whose images they are: its preload imports them
// again and fails naming what did not arrive.

// workerImagesAfter lists the bundled worker images of the stages after
// stage, in the stages' order.
func (p *Preload) workerImagesAfter(stage string) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, s := range Names[slices.Index(Names, stage)+1:] {
		out = append(out, p.preloadFor(s, images.Worker)...)
	}
	return out
}

// starts counts down the lab's workers still starting (started and given
// their own images, or failed); all is closed when none is left.
type starts struct {
	mu   sync.Mutex
	left int
	all  chan struct{}
}

func newStarts(l *lab.Lab) *starts {
	s := &starts{all: make(chan struct{})}
	for _, t := range l.Tenants {
		s.left += len(t.Workers)
	}
	if s.left == 0 {
		close(s.all)
	}
	return s
}

// done marks one worker's start over. A tenant that fails before its
// workers start never counts them down; the stage's context, cancelled by
// that failure, then ends every wait on all.
func (s *starts) done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.left--; s.left == 0 {
		close(s.all)
	}
}

// preloadAhead starts importing the later stages' worker images into the
// tenant's workers and returns what to wait on; cancelling ctx stops it.
func (r *tenantWorkers) preloadAhead(ctx context.Context, nodes []string) *conc.WaitGroup {
	var wg conc.WaitGroup
	refs := r.e.Preload.workerImagesAfter(stageWorkers)
	if len(refs) == 0 {
		return &wg
	}
	for _, node := range nodes {
		wg.Go(func() {
			select {
			case <-r.starts.all:
			case <-ctx.Done():
				return
			}
			err := r.withSlot(ctx, func() error { return r.e.preloadNode(ctx, r.t.Name, node, refs) })
			if err != nil {
				r.e.log().Debug("importing a later stage's images ahead failed; that stage imports them itself",
					"stage", stageWorkers, "worker", node, "err", err)
			}
		})
	}
	return &wg
}
