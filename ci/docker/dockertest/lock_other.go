//go:build !unix

package dockertest

import "os"

// lockFile does nothing where flock does not exist: the tests that drive a
// real daemon run on Linux (and macOS) machines.
func lockFile(*os.File) error { return nil }
