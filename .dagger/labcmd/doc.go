// Package labcmd holds every decision the Dagger module makes that does not
// need an engine: where things live in the runner container, the labctl
// command line of each step, option checks, the lab-file overlay for version
// overrides and the verdict read back from a reports directory. It must not
// import the generated dagger package, so its tests run with plain go test.
package labcmd
