package stages

import (
	"context"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// TestWorkersImportTheHAMiStagesImagesToo: with a bundle, the workers stage
// imports the hami stage's worker images into every worker it starts too
// (beside its tenant's joins, or in the background with the worker's
// start), so the hami stage's own preload finds them there and imports
// nothing.
func TestWorkersImportTheHAMiStagesImagesToo(t *testing.T) {
	e, n := bundledTenantsToJoin(t)
	if _, err := (workersStage{}).Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	hami := e.Preload.preloadFor(stageHAMi, "", images.Worker)
	if len(hami) < 2 {
		t.Fatalf("hami-stage worker images = %v, want HAMi's and the mock NVML library's at least", hami)
	}
	for _, tn := range e.Lab.Tenants {
		node := e.Lab.NodeName(tn.Name, "worker")
		for _, ref := range hami {
			if indexOf(n.events, "import "+node+" "+ref) < 0 {
				t.Errorf("%s not imported into %s by the workers stage:\n%s", ref, node, strings.Join(n.events, "\n"))
			}
		}
	}
	before := len(n.events)
	if err := e.preloadStage(context.Background(), stageHAMi, "", true); err != nil {
		t.Fatal(err)
	}
	for _, ev := range n.events[before:] {
		if strings.HasPrefix(ev, "import ") {
			t.Errorf("the hami stage imported again: %s", ev)
		}
	}
}
