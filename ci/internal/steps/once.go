package steps

import (
	"context"
	"sync"
)

// Once is s done at most once, however often the step it returns runs: the
// first Run does s, and every other Run — later or at the same time —
// waits for that one and returns its error, or its own context's error if
// that ends first. Only the first Run tells the observer about s's leaves:
// they ran once and are logged once. Plan and Names are s's.
//
// It lets two trees hold the same steps: a stage's first steps begun in
// the background while earlier stages run (ci/stages ahead.go), and the
// same steps in the stage's own list, which then waits for what is not
// finished instead of doing it again.
func Once(s Step) Step {
	return Step{kids: []Step{s}, once: &onceState{done: make(chan struct{})}}
}

// onceState is the shared state of the Runs of one Once step.
type onceState struct {
	mu      sync.Mutex
	started bool
	done    chan struct{} // closed when the first Run has returned
	err     error         // the first Run's, read once done is closed
}

func (o *onceState) run(ctx context.Context, do func(context.Context) error) error {
	o.mu.Lock()
	first := !o.started
	o.started = true
	o.mu.Unlock()
	if first {
		o.err = do(ctx)
		close(o.done)
		return o.err
	}
	select {
	case <-o.done:
		return o.err
	case <-ctx.Done():
		return ctx.Err()
	}
}
