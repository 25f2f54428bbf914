package stages

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
)

// stepRecorder is an Env.Steps that keeps the name of every step a run
// started.
type stepRecorder struct {
	mu      sync.Mutex
	started []string
}

func (r *stepRecorder) Started(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, name)
}

func (r *stepRecorder) Ended(string, time.Duration, error) {}

// didWhatThePlanSays fails unless the run started each step of the
// stage's plan exactly once, and nothing else: a run that did everything
// did what its dry-run says.
func (r *stepRecorder) didWhatThePlanSays(t *testing.T, plan func() (steps.Step, error)) {
	t.Helper()
	s, err := plan()
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	got, want := slices.Sorted(slices.Values(r.started)), slices.Sorted(slices.Values(s.Names()))
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("the run's steps differ from its plan's:\nran:  %q\nplan: %q", got, want)
	}
}
