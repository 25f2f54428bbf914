package labcmd

// Progress decides, stage by stage, whether a run goes on, whether the suite
// runs and which exit code the run reports.
type Progress struct {
	// KeepGoing runs the remaining stages and the suite after a failure.
	KeepGoing bool
	// Failed is the first stage that failed ("" when none) and FailedCode its
	// exit code.
	Failed     string
	FailedCode int
}

// Stage records a stage's exit code and reports whether to run the next one.
func (p *Progress) Stage(name string, code int) bool {
	if code != 0 && p.Failed == "" {
		p.Failed, p.FailedCode = name, code
	}
	return code == 0 || p.KeepGoing
}

// RunSuite reports whether the suite should run.
func (p *Progress) RunSuite() bool { return p.Failed == "" || p.KeepGoing }

// ExitCode is the run's exit code: the first failing stage's, otherwise the
// suite's.
func (p *Progress) ExitCode(suite int) int {
	if p.Failed != "" {
		return p.FailedCode
	}
	return suite
}
