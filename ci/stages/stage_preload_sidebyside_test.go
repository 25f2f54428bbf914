package stages

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPreloadImportsIntoWorkersSideBySide: before a stage, the workers
// already there get the stage's images two at a time (preloadsAtOnce), as
// the workers stage imports, not one after another. Each worker's first
// import is held until another worker's is in flight: one after another,
// none ever is, and the count stays 1 (the hold then ends after its bound).
func TestPreloadImportsIntoWorkersSideBySide(t *testing.T) {
	e, d, n := bundledEnv(t)
	// A third worker, so the bound of two is met with one to spare.
	for i := range e.Lab.Tenants {
		if e.Lab.Tenants[i].Name == "tenant-b" {
			w := e.Lab.Tenants[i].Workers[0]
			w.Name = "worker2"
			e.Lab.Tenants[i].Workers = append(e.Lab.Tenants[i].Workers, w)
		}
	}
	if workers := ownedWorkersRunning(e, d, ownManagementNode(t, e, d).ID); len(workers) != 3 {
		t.Fatalf("%d workers, want 3", len(workers))
	}
	var mu sync.Mutex
	inFlight, most := 0, 0
	two := make(chan struct{})
	n.onImport = func(container string) func() {
		if container == e.controlPlaneContainer() {
			return func() {}
		}
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if inFlight == 2 {
			select {
			case <-two:
			default:
				close(two)
			}
		}
		mu.Unlock()
		select {
		case <-two:
		case <-time.After(10 * time.Second):
		}
		return func() {
			mu.Lock()
			inFlight--
			mu.Unlock()
		}
	}
	if err := e.preloadStage(context.Background(), stageHAMi, "", true); err != nil {
		t.Fatal(err)
	}
	imported := map[string]int{}
	for _, ev := range n.events {
		if f := strings.Fields(ev); len(f) == 3 && f[0] == "import" {
			imported[f[1]]++
		}
	}
	for _, tn := range e.Lab.Tenants {
		for _, w := range tn.Workers {
			if name := e.Lab.NodeName(tn.Name, w.Name); imported[name] == 0 {
				t.Errorf("nothing imported into %s: %v", name, n.events)
			}
		}
	}
	if most != preloadsAtOnce {
		t.Errorf("at most %d workers imported at once, want %d (preloadsAtOnce)", most, preloadsAtOnce)
	}
}
