package labcmd

import (
	"fmt"
	"strings"
)

// Step is what one exec on the runner left behind: its exit code and output,
// or, when it did not end normally, why.
type Step struct {
	Name   string
	Code   int
	Output string
	// Broken is empty for an exec that exited by itself with a code Dagger
	// hands back. Otherwise it says why the exec did not finish: killed by a
	// signal, or lost to an engine error such as the Docker-in-Docker
	// service exiting. Nothing runs after a broken step.
	Broken string
	// Setup marks a step that is no exec on the runner but the module's
	// own preparation (fetching the bundle, starting the daemon).
	Setup bool
}

// EngineErrorCode is the exit code recorded for a step that has none of its
// own (the engine lost it, e.g. because the Docker service exited). It is
// the code `docker run` uses when the failure is the daemon's, not the
// command's.
const EngineErrorCode = 125

// Dagger v0.21.8 hands an exec's exit code back (Expect: ANY) only for codes
// 0–127 and 192–255 (core/container.go, ReturnTypes.ReturnCodes: "exit status
// codes 128-191 are likely from exiting via a signal"); any other code, like
// 137 (SIGKILL: the OOM killer) or 143 (SIGTERM), fails the exec with an
// ExecError that still carries code, stdout and stderr (core/exec_error.go).
const (
	firstSignalCode = 128
	lastSignalCode  = 191
)

// SignalCode reports whether an exit code means "killed by a signal", the
// range Dagger refuses to return as an ordinary result.
func SignalCode(code int) bool { return code >= firstSignalCode && code <= lastSignalCode }

// signalNames are the signals a CI run meets in practice.
var signalNames = map[int]string{
	1:  "SIGHUP",
	2:  "SIGINT: interrupted",
	6:  "SIGABRT",
	9:  "SIGKILL: usually the kernel's out-of-memory killer, or a timeout that killed the job",
	11: "SIGSEGV",
	15: "SIGTERM: stopped from outside, e.g. a CI timeout or cancellation",
}

// BrokenExec is the step of an exec that failed in the engine. With an exit
// code (an ExecError) it was killed by a signal; without one the engine lost
// it (engineErr says how, e.g. "bound service … exited").
func BrokenExec(name string, code int, hasCode bool, output, engineErr string) Step {
	s := Step{Name: name, Code: code, Output: output}
	engineErr = strings.TrimSpace(engineErr)
	switch {
	case hasCode && SignalCode(code):
		sig := code - firstSignalCode
		what := signalNames[sig]
		if what == "" {
			what = "a signal"
		}
		s.Broken = fmt.Sprintf("killed by signal %d (%s)", sig, what)
	case hasCode:
		s.Broken = fmt.Sprintf("failed in the engine with exit code %d: %s", code, engineErr)
	default:
		s.Code = EngineErrorCode
		s.Broken = "lost to an engine error (the Docker-in-Docker service may have exited: out of memory or a crash): " + engineErr
	}
	if s.Code == 0 {
		s.Code = EngineErrorCode // never let a broken step read as a pass
	}
	return s
}

// SetupFailed is the step of the module's own preparation (the bundle, the
// Docker-in-Docker service) that the engine could not do; err says why,
// e.g. an image the registry does not serve. It has no exit code of its
// own, so it gets EngineErrorCode.
func SetupFailed(name, engineErr string) Step {
	return Step{Name: name, Code: EngineErrorCode, Setup: true,
		Broken: "not done by the engine: " + strings.TrimSpace(engineErr)}
}

// Log is the log file of a step: its output, and for a broken step a last
// line saying what happened.
func (s Step) Log() string {
	if s.Broken == "" {
		return s.Output
	}
	out := s.Output
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out + fmt.Sprintf("gpu-lab: step %s did not finish: %s (recorded exit code %d)\n", s.Name, s.Broken, s.Code)
}
