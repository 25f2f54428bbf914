package stages

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// EventKind is what happened to a stage.
type EventKind string

const (
	EventStart EventKind = "start"
	EventSkip  EventKind = "skip"
	EventDone  EventKind = "done"
	EventFail  EventKind = "fail"
	EventPlan  EventKind = "plan"
	// EventInfo is a non-stage message (diagnostics written, teardown).
	EventInfo EventKind = "info"
)

// Event is reported to the CLI, which prints it.
type Event struct {
	Stage    string
	Kind     EventKind
	Message  string
	Duration time.Duration
	// Lines are the planned objects and commands (EventPlan).
	Lines []string
}

// Runner runs stages in order.
type Runner struct {
	Stages []Stage
	// Only restricts the run to one stage.
	Only string
	// Keep leaves the lab up after a failure.
	Keep bool
	// Diagnose writes a diagnostics bundle into dir after a failure.
	Diagnose func(ctx context.Context, failed *Error, dir string) error
	// Teardown removes the lab after a failure (unless Keep).
	Teardown func(ctx context.Context) error
	// OnEvent receives progress; nil discards.
	OnEvent func(Event)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (r *Runner) emit(ev Event) {
	if r.OnEvent != nil {
		r.OnEvent(ev)
	}
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Plan reports every selected stage's plan without side effects.
func (r *Runner) Plan(e *Env) error {
	if err := ValidateOnly(r.Only); err != nil {
		return err
	}
	for _, s := range r.Stages {
		if !selected(s.Name(), r.Only) {
			continue
		}
		lines, err := s.Plan(e)
		if err != nil {
			return fail(s.Name(), "", "", fmt.Errorf("plan: %w", err))
		}
		bg, err := aheadPlan(s, e)
		if err != nil {
			return fail(s.Name(), "", "", fmt.Errorf("plan: %w", err))
		}
		r.emit(Event{Stage: s.Name(), Kind: EventPlan, Lines: slices.Concat(bg, e.preloadPlan(s.Name(), "", preloadsWorkersBefore(s)), lines)})
	}
	return nil
}

// Up runs the selected stages in order, skipping those whose work is there.
// A stage's steps that need only an earlier stage's work begin in the
// background as soon as a stage after that one runs (ahead.go). The first
// failure stops the run, in the background too: it is recorded, a
// diagnostics bundle is written under the state dir, and the lab is torn
// down unless Keep.
func (r *Runner) Up(ctx context.Context, e *Env) error {
	if err := ValidateOnly(r.Only); err != nil {
		return err
	}
	recs, err := e.State.ReadStages()
	if err != nil {
		return err
	}
	if r.Only != "" {
		if miss := missingPrerequisite(r.Only, recs); miss != "" {
			return fmt.Errorf("stage %s needs stage %s first: the state dir %s does not record it as done (run `labctl "+
				"up --state-dir %s` or `--only %s`)", r.Only, miss, e.State, e.State, miss)
		}
	}
	runCtx, endRun := context.WithCancelCause(ctx)
	defer endRun(nil)
	bg := newBackground(runCtx, endRun, r, e)
	defer bg.stop()
	// failed stops the background first; a failure there is the failure
	// of its stage, whatever the stage it stopped was doing.
	failed := func(name string, start time.Time, err error) error {
		bg.stop()
		var af *aheadFailed
		if errors.As(context.Cause(runCtx), &af) {
			name, start, err = af.stage, af.start, af.err
		}
		return r.failed(ctx, e, &recs, name, start, err)
	}
	for i := range bg.stages {
		s := bg.stages[i]
		name := s.Name()
		if !selected(name, r.Only) {
			continue
		}
		start := r.now()
		if err := bg.wait(name); err != nil {
			return failed(name, start, err)
		}
		done, msg, err := s.Check(runCtx, e)
		if err != nil {
			return failed(name, start, err)
		}
		switch decide(name, r.Only, done) {
		case skipDone:
			d := r.now().Sub(start)
			r.emit(Event{Stage: name, Kind: EventSkip, Message: "already there: " + msg, Duration: d})
			rec := state.StageRecord{Name: name, Status: StatusSkipped, Started: start, Duration: d, Message: msg}
			if err := r.record(e, &recs, rec); err != nil {
				return err
			}
			continue
		}
		bg.begin(i)
		r.emit(Event{Stage: name, Kind: EventStart})
		if err := e.runSteps(runCtx, name, e.preloadStep(name, "", preloadsWorkersBefore(s))); err != nil {
			return failed(name, start, err)
		}
		msg, err = s.Run(runCtx, e)
		if err != nil {
			return failed(name, start, err)
		}
		d := r.now().Sub(start)
		r.emit(Event{Stage: name, Kind: EventDone, Message: msg, Duration: d})
		if err := r.record(e, &recs, state.StageRecord{Name: name, Status: StatusDone, Started: start, Duration: d, Message: msg}); err != nil {
			return err
		}
	}
	return nil
}

func (r *Runner) record(e *Env, recs *[]state.StageRecord, rec state.StageRecord) error {
	*recs = mergeRecord(*recs, rec)
	if err := e.State.WriteStages(*recs); err != nil {
		return fmt.Errorf("record stage %s in %s: %w", rec.Name, e.State, err)
	}
	return nil
}

// failed records the failure, collects diagnostics and tears down.
func (r *Runner) failed(ctx context.Context, e *Env, recs *[]state.StageRecord, name string, start time.Time, err error) error {
	var se *Error
	if !errors.As(err, &se) {
		se = &Error{Stage: name, Err: err}
		err = se
	}
	d := r.now().Sub(start)
	r.emit(Event{Stage: name, Kind: EventFail, Message: err.Error(), Duration: d})
	rec := state.StageRecord{Name: name, Status: StatusFailed, Started: start, Duration: d, Message: err.Error()}
	if rerr := r.record(e, recs, rec); rerr != nil {
		err = errors.Join(err, rerr)
	}
	// Diagnostics and teardown must run even when ctx was cancelled (Ctrl-C).
	cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Minute)
	defer cancel()
	if r.Diagnose != nil {
		if dir, derr := e.State.NewDiagnostics(name, start); derr != nil {
			r.emit(Event{Stage: name, Kind: EventInfo, Message: "no diagnostics: " + derr.Error()})
		} else {
			if derr := r.Diagnose(cleanup, se, dir); derr != nil {
				r.emit(Event{Stage: name, Kind: EventInfo, Message: "diagnostics incomplete: " + derr.Error()})
			}
			r.emit(Event{Stage: name, Kind: EventInfo, Message: "diagnostics written to " + dir})
		}
	}
	if r.Keep {
		r.emit(Event{Stage: name, Kind: EventInfo, Message: "--keep: the lab is left up for inspection (`labctl shell`, then `labctl down`)"})
		return err
	}
	if r.Teardown != nil {
		r.emit(Event{Stage: name, Kind: EventInfo, Message: "tearing the lab down (use --keep to leave it up)"})
		if terr := r.Teardown(cleanup); terr != nil {
			err = errors.Join(err, fmt.Errorf("teardown after failure: %w", terr))
		}
	}
	return err
}
