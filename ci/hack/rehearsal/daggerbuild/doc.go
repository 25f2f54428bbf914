// Package daggerbuild builds, once and cached under the rehearsal cache's
// dagger/ directory, what the Dagger path of the rehearsal needs and no
// registry serves here: the dagger CLI and an engine image from the
// pinned dagger/dagger tag's git snapshot (with the four dependencies the
// module proxy refuses zipped from their own snapshots, as cmd/go zips
// modules, and checked against dagger's go.sum), and a Go proxy tree in
// the GOPROXY file layout for the gpu-lab Dagger module's own build. It
// also renders the engine's configuration and starts and stops the
// engine container on the rehearsal's private daemon.
package daggerbuild
