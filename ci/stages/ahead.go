package stages

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
)

// aheadStage is a stage whose first steps need only an earlier stage's
// work (issue 42): a worker's container, its containerd and its images need
// the cluster stage's network and management node, not a tenant control
// plane. The runner begins them in the background as soon as a stage
// between that one and this one runs — the workers' while Kamaji installs,
// when the rehearsal's host was 45 % idle — and waits for them before this
// stage's check. The stage it runs in this one's place holds the same steps
// (steps.Once), so it waits for what is not finished instead of doing it
// again. Nothing begins in the background when no stage between runs (an
// `up` with everything there, `--only`): those runs are as before.
type aheadStage interface {
	Stage
	ahead(e *Env) (ahead, error)
}

// ahead is what an aheadStage begins in the background.
type ahead struct {
	// After is the stage whose work the steps need.
	After string
	// What says what the steps do, in a few words (the dry-run and the
	// run's event say it).
	What string
	// Steps are the steps begun in the background.
	Steps steps.Step
	// Stage is run in the aheadStage's place in this run: its steps hold
	// Steps.
	Stage Stage
}

// aheadPlan is the dry-run's line for a stage's steps begun in the
// background; nil for a stage without such steps.
func aheadPlan(s Stage, e *Env) ([]string, error) {
	as, ok := s.(aheadStage)
	if !ok {
		return nil, nil
	}
	a, err := as.ahead(e)
	if err != nil {
		return nil, err
	}
	i, j := slices.Index(Names, a.After), slices.Index(Names, s.Name())
	return []string{fmt.Sprintf("in the background, beside the first of stages %s that runs (none runs: here, in turn): %s; "+
		"this stage waits for them to finish before it checks its work", strings.Join(Names[i+1:j], ", "), a.What)}, nil
}

// aheadFailed is the cause the run's context ends with when a stage's steps
// begun in the background fail: the stage running at that moment stops
// and the run reports the stage whose steps failed.
type aheadFailed struct {
	stage string
	start time.Time
	err   error
}

func (a *aheadFailed) Error() string { return a.err.Error() }

// background is one Up's steps begun ahead of their stage.
type background struct {
	r       *Runner
	e       *Env
	ctx     context.Context // the background's: ends with the run or on stop
	cancel  context.CancelFunc
	failRun context.CancelCauseFunc // ends the run's context with an aheadFailed
	stages  []Stage                 // the run's stages, an aheadStage replaced once begun
	runs    map[string]*aheadRun    // by stage; only the runner's goroutine touches it
}

// aheadRun is one stage's steps under way in the background.
type aheadRun struct {
	done chan struct{}
	err  error
}

func newBackground(runCtx context.Context, failRun context.CancelCauseFunc, r *Runner, e *Env) *background {
	ctx, cancel := context.WithCancel(runCtx)
	return &background{r: r, e: e, ctx: ctx, cancel: cancel, failRun: failRun, stages: slices.Clone(r.Stages),
		runs: map[string]*aheadRun{}}
}

// begin begins, beside the i-th stage about to run, the steps of every
// later selected aheadStage whose After stage comes before it.
func (b *background) begin(i int) {
	now := b.stages[i].Name()
	for j := i + 1; j < len(b.stages); j++ {
		s := b.stages[j]
		as, ok := s.(aheadStage)
		if !ok || !selected(s.Name(), b.r.Only) || b.runs[s.Name()] != nil {
			continue
		}
		a, err := as.ahead(b.e)
		if err != nil || slices.IndexFunc(b.stages[:i], func(p Stage) bool { return p.Name() == a.After }) < 0 {
			continue // the stage's own run reports what cannot be built; its After is not done yet
		}
		b.stages[j] = a.Stage
		run := &aheadRun{done: make(chan struct{})}
		b.runs[s.Name()] = run
		b.r.emit(Event{Stage: s.Name(), Kind: EventInfo, Message: "begun in the background beside stage " + now + ": " + a.What})
		start := b.r.now()
		go func() {
			defer close(run.done)
			run.err = b.e.runSteps(b.ctx, s.Name(), a.Steps)
			if run.err != nil && b.ctx.Err() == nil {
				b.failRun(&aheadFailed{stage: s.Name(), start: start, err: run.err})
			}
		}()
	}
}

// wait waits for the stage's steps begun in the background, if any, and
// returns their error.
func (b *background) wait(stage string) error {
	run := b.runs[stage]
	if run == nil {
		return nil
	}
	<-run.done
	return run.err
}

// stop cancels whatever runs in the background and waits for it: before
// diagnostics and teardown, which must not race a `docker run`.
func (b *background) stop() {
	b.cancel()
	for _, r := range b.runs {
		<-r.done
	}
}
