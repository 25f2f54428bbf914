package daggerrun

import (
	"context"
	"fmt"
)

// engineBudget is the size the engine's volume grows to over a cold
// lab-test call and the calls after it: the module's build, labctl's and
// helm's, the bundle's images pulled through the engine, and the lab itself
// inside the Docker-in-Docker service's cache volume (/var/lib/docker,
// .dagger/run.go), and quick-test's Kubernetes binaries. Measured: 27.26
// GB after a cold lab-test call, 32.02 GB (29.8 GiB) after the README's six
// calls (ci/hack/rehearsal/testdata/runs/2026-12-07-dagger).
const engineBudget = 32 << 30

// diskMargin is kept free beyond the budget: the registry's copy of the
// bundle and the evidence grow on the same disk during the run.
const diskMargin = 4 << 30

// diskShortfall is how many bytes must be freed before the calls start,
// given the free space of the disk the engine's volume is on and what the
// volume already holds (a warm engine needs less): 0 when there is room.
func diskShortfall(free, held int64) int64 {
	need := max(engineBudget-held, 0) + diskMargin
	return max(need-free, 0)
}

// checkDisk refuses to start the calls when the engine's disk cannot hold
// them: short of it, the lab's preflight inside the DinD service refuses
// and the engine's collector prunes what the next call needs (the finding
// above). It names the disk, the numbers (in GB, as the report's table)
// and what to free.
func (r *daggerRun) checkDisk(ctx context.Context) error {
	held, free, err := r.engineCache(ctx)
	if err != nil {
		return err
	}
	r.log.Info("disk before the calls", "engine-volume", gb(held), "free", gb(free), "dir", r.layout.Dir)
	if short := diskShortfall(free, held); short > 0 {
		return fmt.Errorf("the disk of %s has %s free and the engine's volume holds %s; "+
			"the calls grow the volume to about %s and need %s free besides: "+
			"free %s on that file system (Go's build cache, `go clean -cache`, is often the largest) and run again",
			r.layout.Dir, gb(free), gb(held), gb(engineBudget), gb(diskMargin), gb(short))
	}
	return nil
}
