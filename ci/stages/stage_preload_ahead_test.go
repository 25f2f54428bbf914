package stages

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWorkersStageImportsTheHAMiImagesWhileTheWorkersJoin: the hami
// stage's worker images go into each worker during the workers stage, and
// its joins do not wait for them: each such import is held until its
// worker's join has begun. Imported before the join, as the worker's own
// images are, the hold ends only at its bound and the import comes first.
// The hami stage's preload then finds every image in place.
func TestWorkersStageImportsTheHAMiImagesWhileTheWorkersJoin(t *testing.T) {
	e, n := freshWorkersWithBundle(t)
	later := e.Preload.workerImagesAfter(stageWorkers)
	if want := e.Preload.preloadFor(stageHAMi, "tenant worker"); len(want) < 3 || !slices.Equal(later, want) {
		t.Fatalf("worker images after the workers stage = %v, want the hami stage's %v (HAMi, certgen, the mock NVML library)", later, want)
	}
	joined := func(node string) bool {
		n.mu.Lock()
		defer n.mu.Unlock()
		return slices.Contains(n.events, "join "+node)
	}
	n.onImport = func(container string) func() {
		n.d.mu.Lock()
		ref := strings.TrimPrefix(string(n.d.stdinOf[container+" ctr"]), "archive of ")
		n.d.mu.Unlock()
		if slices.Contains(later, ref) {
			for end := time.Now().Add(10 * time.Second); !joined(container) && time.Now().Before(end); {
				time.Sleep(5 * time.Millisecond)
			}
		}
		return func() {}
	}
	if _, err := (workersStage{}).Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	for _, tn := range e.Lab.Tenants {
		node := e.Lab.NodeName(tn.Name, "worker")
		join := indexOf(n.events, "join "+node)
		for _, ref := range later {
			if at := indexOf(n.events, "import "+node+" "+ref); at < join {
				t.Errorf("%s imported into %s at event %d, its join is event %d: the join waited for it, or it never came", ref, node, at, join)
			}
		}
	}
	before := len(n.events)
	if err := e.preloadStage(context.Background(), stageHAMi); err != nil {
		t.Fatal(err)
	}
	for _, ev := range n.events[before:] {
		if strings.HasPrefix(ev, "import ") {
			t.Errorf("the hami stage imported again: %s", ev)
		}
	}
}
