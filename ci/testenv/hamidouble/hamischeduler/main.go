// Command hamischeduler is the HAMi protocol double as a program named and
// called like HAMi's scheduler (no subcommand), for the local test
// environment's tests that drop a HAMi binary in; labctl runs the same
// double as `labctl internal hami-double`.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := hamidouble.Main(ctx, os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, pflag.ErrHelp) {
		// --help is how the environment checks a binary takes the lab's
		// command line (as HAMi's cobra command answers it).
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hamischeduler:", err)
		os.Exit(1)
	}
}
