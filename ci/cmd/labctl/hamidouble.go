package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// newHAMiDoubleCommand is `labctl internal hami-double <HAMi's scheduler flags>`: the
// HAMi protocol test double as a program with HAMi v2.10.0's scheduler
// command line, which the local test environment starts as a process in
// HAMi's place. Hidden: it is test infrastructure, not a lab command.
func newHAMiDoubleCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:    "hami-double [HAMi scheduler flags]",
		Short:  "Run the " + hamidouble.Banner + " with HAMi v2.10.0's scheduler command line",
		Hidden: true,
		// HAMi's flags are parsed by hamidouble.Main, exactly and
		// rejecting unknown ones; cobra must not see them.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return hamidouble.Main(cmd.Context(), args, os.Getenv, s.errOut)
		},
	}
}
