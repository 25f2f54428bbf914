package run

import (
	"fmt"
	"strings"
	"time"
)

// FaultRecord is what rehearsal.md says of the fault a run made.
type FaultRecord struct {
	Name   Fault
	Tenant string
	// What the fault does to this lab, in words.
	What string
	// Trigger is what set it off: a case of the tenant starting, or the
	// fallback.
	Trigger string
	// Injected: the fault was made, At after labctl test began (when its
	// disruptive command began).
	Injected bool
	At       time.Duration
	// Commands made it, as run; Did says what they did.
	Commands []string
	Did      []string
	// Recovered: the component was back Recovery after the fault, seen by
	// the Probes-th look; Detail is what the last look saw. Bound is how
	// long the recovery was watched.
	Recovered bool
	Recovery  time.Duration
	Bound     time.Duration
	Probes    int
	Detail    string
	// Notes are milestones of the recovery (a new etcd leader).
	Notes []string
	// Err says why the fault was not made.
	Err string
	// Verdict is each failed case of the suite and whether it names the
	// fault.
	Verdict []string
}

// faultSuiteError is suiteError for a run with a fault. A failed case is
// what a fault may cause, so it fails the rehearsal only when its message
// names nothing of the fault (faultPlan.names). The run also fails when
// the suite wrote no results, when labctl test exited non-zero with no
// failed case (as without a fault), and when the fault was not made: a run
// that asked for a fault and made none proves nothing about it.
func faultSuiteError(test stepResult, s *Suite, pl faultPlan, rec *FaultRecord) error {
	if s == nil {
		return suiteError(test, s)
	}
	var unnamed []string
	for _, c := range s.FailedCases {
		if w, ok := pl.names(c); ok {
			rec.Verdict = append(rec.Verdict, fmt.Sprintf("%s — names the fault (%q)", c, w))
		} else {
			unnamed = append(unnamed, c)
			rec.Verdict = append(rec.Verdict, c+" — names nothing of the fault")
		}
	}
	switch {
	case !rec.Injected:
		return fmt.Errorf("the fault %s was %s", pl.Fault, orNone(rec.Err))
	case len(unnamed) > 0:
		return fmt.Errorf("with fault %s, %d failed case(s) name nothing of it, "+
			"so a platform team could not tell what broke (words that count: %s; or %s with %s): %s",
			pl.Fault, len(unnamed), strings.Join(pl.own, ", "), pl.Tenant, orNone(strings.Join(pl.component, ", ")), strings.Join(unnamed, "; "))
	case s.Failed == 0 && test.ExitCode != 0:
		return suiteError(test, s)
	}
	return nil
}

// markdown is the report's section on the fault.
func (f *FaultRecord) markdown(w func(string, ...any)) {
	w("\n## Fault: %s\n\n%s\n\n", f.Name, f.What)
	if !f.Injected {
		why := f.Err
		if why == "" {
			why = "not made: the suite did not run"
		}
		w("**The fault was %s.**\n", why)
		if len(f.Commands) > 0 {
			w("\nCommands run:\n\n")
			for _, c := range f.Commands {
				w("- `%s`\n", c)
			}
		}
		return
	}
	w("- trigger: %s\n", f.Trigger)
	w("- made %s after labctl test began, by:\n", f.At.Round(100*time.Millisecond))
	for _, c := range f.Commands {
		w("  - `%s`\n", c)
	}
	for _, d := range f.Did {
		w("- did: %s\n", d)
	}
	if f.Recovered {
		w("- **recovered %s after the fault** (look %d, every %s): %s\n", f.Recovery.Round(100*time.Millisecond), f.Probes, faultPoll, f.Detail)
	} else {
		w("- **not recovered within %s** (%d looks, every %s); the last look: %s\n", f.Bound, f.Probes, faultPoll, f.Detail)
	}
	for _, n := range f.Notes {
		w("- %s\n", n)
	}
	if len(f.Verdict) == 0 {
		w("- the suite: no case failed\n")
	}
	for _, v := range f.Verdict {
		w("- failed %s\n", v)
	}
	w("- every command's output: %s\n", faultLog)
}

func noneIfEmpty(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
