package daggerrun

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"
)

type trace struct{ events []string }

func (tr *trace) step(name string, fail bool, undo bool) Step {
	s := Step{Name: name, Do: func(context.Context) error {
		tr.events = append(tr.events, "do "+name)
		if fail {
			return errors.New(name + " broke")
		}
		return nil
	}}
	if undo {
		s.Undo = func(context.Context) error { tr.events = append(tr.events, "undo "+name); return nil }
	}
	return s
}

func TestRunStepsUndoesNewestFirstAfterAFailure(t *testing.T) {
	for _, tc := range []struct {
		name       string
		failAt     string
		keep       bool
		wantEvents []string
		wantErr    string
	}{
		{"all pass", "", false, []string{"do daemon", "do registry", "do clone", "do engine", "undo engine", "undo registry", "undo daemon"}, ""},
		{"engine fails", "engine", false, []string{"do daemon", "do registry", "do clone", "do engine", "undo engine",
			"undo registry", "undo daemon"}, "engine: engine broke"},
		{"registry fails", "registry", false, []string{"do daemon", "do registry", "undo registry", "undo daemon"}, "registry: registry broke"},
		{"kept", "", true, []string{"do daemon", "do registry", "do clone", "do engine"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &trace{}
			steps := []Step{tr.step("daemon", tc.failAt == "daemon", true), tr.step("registry", tc.failAt == "registry", true),
				tr.step("clone", tc.failAt == "clone", false), tr.step("engine", tc.failAt == "engine", true)}
			res, err := runSteps(context.Background(), slog.New(slog.DiscardHandler), time.Now, steps, tc.keep)
			if !slices.Equal(tr.events, tc.wantEvents) {
				t.Errorf("events %q, want %q", tr.events, tc.wantEvents)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
			if last := res[len(res)-1]; (last.Err != nil) != (tc.failAt != "") {
				t.Errorf("last step result %+v", last)
			}
		})
	}
}

// Undoing goes on past a failing undo, and both failures are returned.
func TestRunStepsUndoesEverythingPastAFailingUndo(t *testing.T) {
	tr := &trace{}
	bad := tr.step("registry", false, false)
	bad.Undo = func(context.Context) error {
		tr.events = append(tr.events, "undo registry")
		return errors.New("registry stuck")
	}
	steps := []Step{tr.step("daemon", false, true), bad, tr.step("engine", true, true)}
	_, err := runSteps(context.Background(), slog.New(slog.DiscardHandler), time.Now, steps, false)
	if want := []string{"do daemon", "do registry", "do engine", "undo engine", "undo registry",
		"undo daemon"}; !slices.Equal(tr.events, want) {
		t.Errorf("events %q, want %q", tr.events, want)
	}
	if err == nil || !strings.Contains(err.Error(), "engine broke") || !strings.Contains(err.Error(), "undo registry: registry stuck") {
		t.Errorf("err = %v, want both failures", err)
	}
}
