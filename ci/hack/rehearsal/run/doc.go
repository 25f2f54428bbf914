// Package run is `rehearse run`: the real lab, run end to end on this
// machine exactly as a user runs it. It starts the private Docker daemon in
// its network namespace (ci/hack/rehearsal/hostdaemon), then runs a labctl
// binary built from the checkout — `labctl up --images BUNDLE` and `labctl test` — inside
// that namespace (nsenter --net, DOCKER_HOST the private daemon's socket:
// the kind API server and the tenants' NodePorts exist only there), keeps
// the suite's reports and a rehearsal report (rehearsal.md: commit,
// versions, which images were built from source, every host adaptation,
// each stage's time, the suite's time, measured peak memory and disk), then
// takes the lab down and removes everything it made unless told to keep it.
//
// The package prints nothing itself: it logs through the slog.Logger it is
// given and returns the Outcome; the command prints. Everything that can be
// got wrong without root and Docker — the command lines, the report, the
// cleanup plan, the progress heartbeat — is pure and tested with fakes for
// the processes. The real run is opt-in (GPU_LAB_REHEARSAL=1 and a bundle).
package run
