// Package daggerrun rehearses the Dagger module as its users run it: the
// README's own `dagger call` commands, from a fresh clone, against a Dagger
// engine v0.21.8 built from its pinned source (ci/hack/rehearsal/daggerbuild)
// on the rehearsal's private daemon (ci/hack/rehearsal/hostdaemon), with the
// images the module and the lab pull served by a registry in the daemon's
// network namespace (ci/hack/rehearsal/registry) and the module's Go builds
// served by a Go proxy tree there. Only what this machine needs is added
// to the README's commands — the engine's runner host and registry
// mirrors, and module options any runner without internet access sets —
// and each addition is listed among the adaptations with its evidence.
//
// A run is an ordered list of steps (Steps); each is timed, logged into
// the evidence directory and undone, newest first, whatever happens.
package daggerrun
