package stages

import (
	"context"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// ownImportsStage is recordingStage for a stage that imports its worker
// images into its workers itself (importsIntoItsWorkers), as the workers
// stage does.
type ownImportsStage struct{ recordingStage }

func (ownImportsStage) importsIntoItsWorkers() {}

// TestRunnerLeavesAStagesOwnWorkerImportsToIt: before a stage that imports
// into its own workers, the Runner imports nothing into them — not even
// into workers already there — and its dry-run says no such preload; the
// workers stage is such a stage.
func TestRunnerLeavesAStagesOwnWorkerImportsToIt(t *testing.T) {
	e, d, n := bundledEnv(t)
	ownedWorkersRunning(e, d, ownManagementNode(t, e, d).ID)
	if len(e.Preload.preloadFor(stageWorkers, "", images.Worker)) == 0 {
		t.Fatal("the bundle has no workers-stage worker images: nothing to leave out")
	}
	s := ownImportsStage{recordingStage{name: stageWorkers, n: n}}
	if err := (&Runner{Stages: []Stage{s}}).Up(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	for _, ev := range n.events {
		if strings.HasPrefix(ev, "import ") {
			t.Errorf("the Runner imported before a stage that imports into its own workers: %s", ev)
		}
	}
	var lines []string
	r := &Runner{Stages: []Stage{s}, OnEvent: func(ev Event) { lines = append(lines, ev.Lines...) }}
	if err := r.Plan(e); err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "preload into every worker") {
			t.Errorf("the dry-run says a preload the Runner does not do: %s", l)
		}
	}
	if preloadsWorkersBefore(workersStage{}) {
		t.Error("the workers stage is not one that imports into its own workers")
	}
}
