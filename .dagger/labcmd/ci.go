package labcmd

import "time"

// The CI recipe, as the user types it. Both CI files run exactly these lines
// (a test parses them): the first runs the lab once and exports the reports
// even when cases fail; the second fails the job from the exported
// exit-code without re-running anything.
const (
	CIRun   = "dagger call lab-test export --path=reports"
	CICheck = "dagger call check-reports --reports=reports"
)

// The quick tier runs first in both CI files, in a job of its own before
// lab-test (which waits for it): the local test environment with HAMi's
// real scheduler from its official image, no Docker-in-Docker, minutes.
const (
	CIQuickRun   = "dagger call quick-test export --path=quick-reports"
	CIQuickCheck = "dagger call check-reports --reports=quick-reports"
	// CIQuickJob names the job in both files.
	CIQuickJob = "quick-test"
)

// Pinned versions of the Dagger tooling in CI.
const (
	DaggerVersion          = "0.21.8"
	DaggerForGitHubVersion = "v8.4.1"
)

// InotifySysctl raises the inotify limits several kind-style nodes need, to
// the values kind's known issues give ("Pod errors due to too many open
// files", site/content/docs/user/known-issues.md in kubernetes-sigs/kind:
// the limits are not namespaced, so they must be raised on the host). The
// GitHub workflow runs it with sudo on the runner VM; the GitLab job runs it
// best effort in its privileged job container.
const InotifySysctl = "sysctl -w fs.inotify.max_user_watches=524288 fs.inotify.max_user_instances=512"

// Cold hosted runs. Nothing persists between hosted CI jobs: the Dagger
// engine, its layer cache and the DinD daemon's image cache (cache volume
// DockerCache) start empty, so every job pulls and builds everything. These
// are ESTIMATES (no hosted run has happened yet), kept here so tests can hold
// the CI timeouts and PullTimeout above them; replace them with measurements.
const (
	// ColdImagePullEstimate is the longest one kindest/node image pull
	// (several hundred MB compressed, about 1 GB unpacked) should take on a
	// hosted runner.
	ColdImagePullEstimate = 5 * time.Minute
	// ColdRunEstimate is the longest a cold `lab-test` should take on a
	// 2–4 core hosted runner: engine start and image pulls, the labctl and
	// helm builds from an empty Go cache, two kindest/node pulls, the images
	// pulled inside the kind nodes and workers, six stages and the suite.
	ColdRunEstimate = 45 * time.Minute
)

// UnitTestCommand is the README's test command (its `test-command` marker;
// a test keeps them equal), which the module's check runs.
const UnitTestCommand = "ci/test.sh"

// CICheckTests runs the module's checks (the unit tests); both CI files run
// it before lab-test.
const CICheckTests = "dagger check"

// UnitTests is the check's command line.
func UnitTests() []string { return []string{"bash", UnitTestCommand} }
