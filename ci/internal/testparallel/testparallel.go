// Package testparallel raises how many tests of a package run at once, for
// test packages whose tests mostly wait (environments booting, schedulers'
// backoff, informers' polls) rather than compute: go test's default,
// GOMAXPROCS (2 on a small CI machine), would leave the cores idle.
package testparallel

import (
	"flag"
	"fmt"
)

// Default sets fs's -test.parallel to n unless the command line gave it,
// so an explicit -parallel still wins. Call it from TestMain after
// flag.Parse, with flag.CommandLine.
func Default(fs *flag.FlagSet, n int) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given {
		return nil
	}
	if err := fs.Set("test.parallel", fmt.Sprint(n)); err != nil {
		return fmt.Errorf("set -test.parallel to %d: %w", n, err)
	}
	return nil
}
