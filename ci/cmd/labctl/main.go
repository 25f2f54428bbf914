// Command labctl builds the gpu-lab, runs its conformance suite and writes
// reports. Each subcommand lives in its own file, in one style: the file's
// newXCommand builds the command (its flags, subcommands and RunE) and the
// file's one-line init adds it to root (`func init() {
// root.AddCommand(newXCommand()) }`), so a command is added or removed by
// adding or removing its file.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// exitError carries a specific exit code without printing twice.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit code %d", e.code) }

var root = &cobra.Command{
	Use:           "labctl",
	Short:         "Build the multi-tenant GPU lab (Kamaji + HAMi), test it and report",
	SilenceUsage:  true,
	SilenceErrors: true,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if runAsHAMiScheduler(os.Args[0]) {
		root.SetArgs(append([]string{"hami-double"}, os.Args[1:]...))
	}
	guardGroupsOnce()
	err := withCommandHint(root.ExecuteContext(ctx))
	var ee exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		os.Exit(ee.code)
	default:
		fmt.Fprintln(os.Stderr, "labctl:", err)
		os.Exit(1)
	}
}
