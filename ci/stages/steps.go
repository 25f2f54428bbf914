package stages

import (
	"context"
	"log/slog"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
)

// runSteps runs a stage's steps (the same ones its Plan prints), logging
// each step's start and end at debug level (labctl -v), so a run's log
// reads as its dry-run with times, and telling Env.Steps when set.
//
// A step of a side-by-side group cancelled half-way, because another
// failed, leaves what an interrupted `up` leaves, and the next `up` takes
// it on as it does then: a half-joined worker is reset before its next
// join (joinWorker), a helm install left pending has that revision's
// record deleted before the next install (helmInstall).
func (e *Env) runSteps(ctx context.Context, stage string, s steps.Step) error {
	log := e.log().With("stage", stage)
	return s.Run(ctx, steps.Options{Log: log, Observer: stepLog{log: log, next: e.Steps}})
}

// planOf is the dry-run of the steps build returns.
func planOf(build func() (steps.Step, error)) ([]string, error) {
	st, err := build()
	if err != nil {
		return nil, err
	}
	return st.Plan(), nil
}

// runBuilt runs the steps build returns (runSteps); steps that cannot be
// rendered fail the stage naming its rendered configuration.
func (e *Env) runBuilt(ctx context.Context, stage string, build func() (steps.Step, error)) error {
	st, err := build()
	if err != nil {
		return fail(stage, "rendered configuration", "", err)
	}
	return e.runSteps(ctx, stage, st)
}

// stepLog is the Observer of runSteps.
type stepLog struct {
	log  *slog.Logger
	next steps.Observer
}

func (l stepLog) Started(name string) {
	l.log.Debug("step started", "step", name)
	if l.next != nil {
		l.next.Started(name)
	}
}

func (l stepLog) Ended(name string, took time.Duration, err error) {
	if err != nil {
		l.log.Debug("step failed", "step", name, "took", took.Round(time.Millisecond), "err", err)
	} else {
		l.log.Debug("step done", "step", name, "took", took.Round(time.Millisecond))
	}
	if l.next != nil {
		l.next.Ended(name, took, err)
	}
}

// tenantsSideBySide runs each tenant's steps at the same time, the tenants
// in the lab's order; a dry-run with more than one tenant says so.
func tenantsSideBySide(tenants []steps.Step) steps.Step {
	say := ""
	if len(tenants) > 1 {
		say = "the tenants below run side by side; the first failure stops the others and is the one reported"
	}
	return steps.SideBySide(say, tenants...)
}
