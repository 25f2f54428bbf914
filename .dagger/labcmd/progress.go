package labcmd

// Progress decides, step by step, whether a run goes on, whether the suite
// runs and which exit code the run reports.
type Progress struct {
	// KeepGoing runs the remaining stages and the suite after a failure.
	KeepGoing bool
	// Failed is the first stage that failed ("" when none) and FailedCode its
	// exit code.
	Failed     string
	FailedCode int
	// Broken is the step that did not finish (killed by a signal, or lost to
	// an engine error). Nothing runs after it, even with KeepGoing: the
	// daemon may be gone, and a stage run against a restarted, empty daemon
	// would only report misleading failures.
	Broken *Step
	// WipeFailed is the clearing of earlier runs' leftovers when it exited
	// non-zero. The run goes on (it is best effort); the summary names it.
	WipeFailed *Step
}

// Stage records a stage's exit code and reports whether to run the next one.
func (p *Progress) Stage(name string, code int) bool {
	return p.Record(Step{Name: name, Code: code})
}

// Record records a stage or the suite and reports whether to run the next
// step.
func (p *Progress) Record(s Step) bool {
	if s.Broken != "" {
		if p.Broken == nil {
			p.Broken = &s
		}
		if p.Failed == "" {
			p.Failed, p.FailedCode = s.Name, s.Code
		}
		return false
	}
	if s.Code != 0 && p.Failed == "" {
		p.Failed, p.FailedCode = s.Name, s.Code
	}
	return p.Continue()
}

// RecordWipe records the clearing of earlier runs' leftovers: a non-zero
// exit is noted and the run goes on; a broken wipe stops it.
func (p *Progress) RecordWipe(s Step) bool {
	if s.Broken != "" {
		return p.Record(s)
	}
	if s.Code != 0 {
		p.WipeFailed = &s
	}
	return true
}

// Continue reports whether the next stage should run.
func (p *Progress) Continue() bool {
	return p.Broken == nil && (p.Failed == "" || p.KeepGoing)
}

// RunSuite reports whether the suite should run.
func (p *Progress) RunSuite() bool { return p.Continue() }

// ExitCode is the run's exit code: the first failing step's, otherwise the
// suite's.
func (p *Progress) ExitCode(suite int) int {
	if p.Failed != "" {
		return p.FailedCode
	}
	return suite
}

// Summary is the summary.md the module writes when labctl's own cannot
// stand: a step broke, or a stage failed and the suite never ran. It is ""
// when the suite ran to its end (labctl wrote the summary). tail returns the
// end of a step's log.
func (p *Progress) Summary(tail func(step string) string) string {
	var s string
	switch {
	case p.Broken != nil:
		s = BrokenSummary(*p.Broken, tail(p.Broken.Name))
		if p.Failed != "" && p.Failed != p.Broken.Name {
			s += earlierFailure(p.Failed, p.FailedCode)
		}
	case p.Failed != "" && !p.KeepGoing:
		s = StageFailure(p.Failed, p.FailedCode, tail(p.Failed))
	default:
		return ""
	}
	if p.WipeFailed != nil {
		s += wipeNote(p.WipeFailed.Code)
	}
	return s
}
