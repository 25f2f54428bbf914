package testenv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// step is one part of a tenant's start. It runs once every step it comes
// after has succeeded, so independent parts (the konnectivity agent and the
// API server, kube-controller-manager and KWOK, the readiness checks) run at
// the same time: on two cores a tenant's start is mostly waiting.
type step struct {
	name  string
	after []string
	fn    func(context.Context) error
}

// stepTiming is how one step of a tenant's start went: when it began after
// the tenant's start and how long it took.
type stepTiming struct {
	Step        string
	Began, Took time.Duration
}

// errStepSkipped is the cause with which the remaining steps are cancelled
// once one has failed; their own errors then say nothing new.
var errStepSkipped = errors.New("an earlier step failed")

// runSteps runs steps as their order allows and returns the first failure,
// with the failed step's name. Every step's timing is recorded
// (tenant.StepTimings) and logged at debug level.
func (t *tenant) runSteps(ctx context.Context, steps []step) error {
	done := make(map[string]chan struct{}, len(steps))
	for _, s := range steps {
		done[s.name] = make(chan struct{})
	}
	for _, s := range steps {
		for _, a := range s.after {
			if done[a] == nil {
				return fmt.Errorf("tenant %s: step %q comes after %q, which is no step", t.name(), s.name, a)
			}
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	for _, s := range steps {
		wg.Go(func() {
			for _, a := range s.after {
				select {
				case <-done[a]:
				case <-ctx.Done():
					return
				}
			}
			start := time.Now()
			err := s.fn(ctx)
			took := time.Since(start)
			if err != nil {
				if errors.Is(context.Cause(ctx), errStepSkipped) {
					return // another step failed first
				}
				mu.Lock()
				if first == nil {
					first = fmt.Errorf("tenant %s: %s: %w", t.name(), s.name, err)
				}
				mu.Unlock()
				cancel(errStepSkipped)
				return
			}
			t.recordStep(s.name, start, took)
			close(done[s.name])
		})
	}
	wg.Wait()
	return first
}

func (t *tenant) recordStep(name string, start time.Time, took time.Duration) {
	t.timingMu.Lock()
	t.timings = append(t.timings, stepTiming{Step: name, Began: start.Sub(t.began), Took: took})
	t.timingMu.Unlock()
	t.env.log.Debug("tenant step done", "tenant", t.name(), "step", name,
		"began", start.Sub(t.began).Round(time.Millisecond).String(), "took", took.Round(time.Millisecond).String())
}

// stepTimings lists how each step of the tenant's start went, in the order
// the steps finished.
func (e *Env) stepTimings(tenant string) []stepTiming {
	t := e.tenant(tenant)
	t.timingMu.Lock()
	defer t.timingMu.Unlock()
	return append([]stepTiming(nil), t.timings...)
}
