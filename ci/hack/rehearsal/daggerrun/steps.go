package daggerrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Step is one action of the run, and how to undo it: Undo runs, newest
// first, once every step has run or one has failed (nil when the step
// leaves nothing behind).
type Step struct {
	Name string
	Do   func(ctx context.Context) error
	Undo func(ctx context.Context) error
}

// StepResult is what the report says of one step.
type StepResult struct {
	Name string
	Wall time.Duration
	Err  error
}

// runSteps runs the steps in order until one fails, then undoes what the
// steps that started made, newest first (also the failed one's: it may
// have made part of it), unless keep; undoing goes on past a failure and
// every failure is returned. A step that started is undone even when the
// context ended.
func runSteps(ctx context.Context, log *slog.Logger, now func() time.Time, steps []Step, keep bool) ([]StepResult, error) {
	var results []StepResult
	var undo []Step
	var err error
	for _, s := range steps {
		if err = ctx.Err(); err != nil {
			break
		}
		log.Info("step", "name", s.Name)
		start := now()
		if s.Undo != nil {
			undo = append(undo, s)
		}
		serr := s.Do(ctx)
		results = append(results, StepResult{Name: s.Name, Wall: now().Sub(start), Err: serr})
		if serr != nil {
			err = fmt.Errorf("%s: %w", s.Name, serr)
			break
		}
	}
	if keep {
		if len(undo) > 0 {
			log.Warn("kept everything the run started (--keep): undo it with the same command's --down", "steps", len(undo))
		}
		return results, err
	}
	errs := []error{err}
	uctx := context.WithoutCancel(ctx)
	for i := len(undo) - 1; i >= 0; i-- {
		if uerr := undo[i].Undo(uctx); uerr != nil {
			errs = append(errs, fmt.Errorf("undo %s: %w", undo[i].Name, uerr))
		}
	}
	return results, errors.Join(errs...)
}
