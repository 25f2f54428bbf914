// Package steps holds a stage's work as one list of steps, each with what a
// dry-run says of it and what a run does, so `labctl up --dry-run` prints
// the very steps `labctl up` executes: the two cannot drift (issue 40),
// as they did when each stage's dry-run was text written beside its Run.
//
// A step is a leaf (Do: lines to say and a function to run), an ordered
// list (Seq) or a group run side by side (SideBySide). Plan walks the tree
// and returns every line; Run walks the same tree and runs every leaf, in
// order or side by side, telling an observer which step starts and ends —
// the same words as the dry-run, so a run's log and timeline read like
// its plan.
package steps

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/sourcegraph/conc/pool"
)

// Step is one thing a stage does, or an ordered or side-by-side group of
// them. The zero Step does nothing and says nothing.
type Step struct {
	say  []string
	do   func(ctx context.Context) error
	kids []Step
	side bool
	once *onceState // Once: kids[0], run at most once
}

// Do is a leaf: the lines a dry-run prints for it (the first one names the
// step in the run's log and timeline) and the work a run does.
func Do(do func(ctx context.Context) error, say ...string) Step {
	return Step{say: say, do: do}
}

// Seq runs its steps one after another; the first failure ends it.
func Seq(steps ...Step) Step { return Step{kids: steps} }

// SideBySide runs its steps at the same time and returns once every one has
// returned, so nothing runs on after it. The first to fail cancels the
// others' context and its error is the one returned (conc's
// WithFirstError): once cancelled, the others fail on whatever they were
// waiting for and name an object that did nothing wrong; joined to the
// cause, they would bury it (each is logged at debug level). say is the
// line a dry-run prints before the group's own lines ("" for none).
func SideBySide(say string, steps ...Step) Step {
	s := Step{kids: steps, side: true}
	if say != "" {
		s.say = []string{say}
	}
	return s
}

// Plan is every line of the step and of the steps inside it, in the order
// a run starts them (a side-by-side group's steps in their listed order).
func (s Step) Plan() []string {
	out := append([]string(nil), s.say...)
	for _, k := range s.kids {
		out = append(out, k.Plan()...)
	}
	return out
}

// Names are the names of the step's leaves, in the order Plan lists them:
// what a run that does everything starts.
func (s Step) Names() []string {
	if s.do != nil {
		return []string{Name(s.say)}
	}
	var out []string
	for _, k := range s.kids {
		out = append(out, k.Names()...)
	}
	return out
}

// Observer hears each leaf start and end during Run (from several
// goroutines inside a side-by-side group). Name is the leaf's first line;
// took is how long the leaf ran.
type Observer interface {
	Started(name string)
	Ended(name string, took time.Duration, err error)
}

// Options are what Run needs besides the context; the zero value is valid.
type Options struct {
	// Log receives the failures a side-by-side group drops from its result
	// (debug level); nil discards them.
	Log *slog.Logger
	// Observer, when set, hears every leaf start and end.
	Observer Observer
}

// Run does the step: a leaf's work, a list's steps in order, a group's
// steps side by side.
func (s Step) Run(ctx context.Context, o Options) error {
	if s.do != nil {
		return s.runLeaf(ctx, o)
	}
	if s.once != nil {
		return s.once.run(ctx, func(ctx context.Context) error { return s.kids[0].Run(ctx, o) })
	}
	if s.side {
		return s.runSideBySide(ctx, o)
	}
	for _, k := range s.kids {
		if err := k.Run(ctx, o); err != nil {
			return err
		}
	}
	return nil
}

func (s Step) runLeaf(ctx context.Context, o Options) error {
	name, start := Name(s.say), time.Now()
	if o.Observer != nil {
		o.Observer.Started(name)
	}
	err := s.do(ctx)
	if o.Observer != nil {
		o.Observer.Ended(name, time.Since(start), err)
	}
	return err
}

func (s Step) runSideBySide(ctx context.Context, o Options) error {
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError()
	for _, k := range s.kids {
		p.Go(func(ctx context.Context) error {
			err := k.Run(ctx, o)
			if err != nil && o.Log != nil {
				o.Log.Debug("a step run side by side failed (only the first failure is returned)", "step", Name(k.Plan()), "err", err)
			}
			return err
		})
	}
	return p.Wait()
}

// Name is how a step with these dry-run lines is named in a log: the first
// line's first line.
func Name(say []string) string {
	if len(say) == 0 {
		return ""
	}
	first, _, _ := strings.Cut(say[0], "\n")
	return first
}
