package stages

import (
	"context"
	"fmt"
)

// Stage is one step of building the lab.
type Stage interface {
	// Name is one of Names.
	Name() string
	// Plan lists what Run would apply or execute, exactly, for --dry-run.
	// It must not touch Docker or a cluster.
	Plan(e *Env) ([]string, error)
	// Check reports whether the stage's work is already in place; msg says
	// what was found (shown when the stage is skipped).
	Check(ctx context.Context, e *Env) (done bool, msg string, err error)
	// Run does the stage's work and returns a one-line summary.
	Run(ctx context.Context, e *Env) (msg string, err error)
}

// Error is a failed stage: which stage, which object, and the last
// condition seen on it, so a user knows where to look without reading logs.
type Error struct {
	Stage string
	// Object names what failed, e.g. "TenantControlPlane tenant-a/tenant-a".
	Object string
	// Condition is the last state observed, e.g. "status Provisioning".
	Condition string
	Err       error
}

func (e *Error) Error() string {
	s := "stage " + e.Stage
	if e.Object != "" {
		s += ": " + e.Object
	}
	if e.Condition != "" {
		s += " (last seen: " + e.Condition + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// fail builds a stage error.
func fail(stage, object, condition string, err error) error {
	return &Error{Stage: stage, Object: object, Condition: condition, Err: err}
}

// failf builds a stage error from a message.
func failf(stage, object, condition, format string, a ...any) error {
	return fail(stage, object, condition, fmt.Errorf(format, a...))
}
