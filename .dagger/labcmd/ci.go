package labcmd

// The CI recipe, as the user types it. Both CI files run exactly these lines
// (a test parses them): the first runs the lab once and exports the reports
// even when cases fail; the second fails the job from the exported
// exit-code without re-running anything.
const (
	CIRun   = "dagger call lab-test export --path=reports"
	CICheck = "dagger call check-reports --reports=reports"
)

// Pinned versions of the Dagger tooling in CI.
const (
	DaggerVersion          = "0.21.8"
	DaggerForGitHubVersion = "v8.4.1"
)
