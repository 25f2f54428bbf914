package hamidouble

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/internal/testparallel"
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
	if err := testparallel.Default(flag.CommandLine, parallelTests); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
