// Command rehearse is the maintainers' rehearsal tier: the real lab built
// from pinned sources and run end to end on a private Docker daemon of this
// machine (ci/hack/rehearsal/README.md). It is a command of its own, not a
// labctl subcommand, so that the user's labctl neither lists nor links the
// image and chart builders.
//
// Build it with `go build -o bin/rehearse ./ci/hack/rehearse`; `rehearse
// run` builds the labctl it rehearses from the same checkout.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// streams are the command's standard streams, passed in so that tests
// build the command tree on buffers.
type streams struct{ out, errOut io.Writer }

// newRehearseCommand builds the whole command tree. Every subcommand is in
// this one list; a new one is added here and nowhere else.
func newRehearseCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use: "rehearse",
		Short: "Maintainers' rehearsal tier: build the lab's images and charts from source and run the " +
			"real lab on a private Docker daemon of this machine",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetOut(s.out)
	cmd.SetErr(s.errOut)
	cmd.AddCommand(
		newDaemonCommand(),
		newAdaptationsCommand(),
		newRunCommand(),
		newImagesCommand(),
		newChartsCommand(),
		newRehearseDaggerCommand(),
	)
	cmd.AddCommand(newRehearseModuleCommands()...)
	return cmd
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRehearseCommand(streams{out: os.Stdout, errOut: os.Stderr}).ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "rehearse:", err)
		os.Exit(1)
	}
}

func progressLog(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}
