package hamidouble

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// parallelTests is how many tests run at once unless -parallel says
// otherwise. The tests mostly wait rather than compute: each double's
// informers sync on client-go's 100 ms poll, and the harness polls for
// registration passes, informer caches and asynchronously written events.
// go test's default (GOMAXPROCS, 2 on a small CI machine) would leave both
// cores idle most of the time; measured on 2 cores, 8 brings the package
// from about 4.5 s at the default to about 1.8 s, which is close to its CPU
// time spread over two cores, so more would not help.
const parallelTests = 8

func TestMain(m *testing.M) {
	flag.Parse()
	if !flagSet("test.parallel") {
		if err := flag.Set("test.parallel", fmt.Sprint(parallelTests)); err != nil {
			fmt.Fprintln(os.Stderr, "set -test.parallel:", err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}

// flagSet reports whether the flag was given on the command line, so an
// explicit -parallel wins.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
