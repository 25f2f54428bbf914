// Command labctl builds the gpu-lab, runs its conformance suite and writes
// reports. Each subcommand lives in its own file, in one style: the file's
// newXCommand builds the command (its flags, subcommands and RunE), and
// newRootCommand lists every command once, in the group a user looks for
// it in, so a command is added or removed in its file and that list.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"
)

// exitError carries a specific exit code without printing twice.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit code %d", e.code) }

// streams are labctl's standard streams. Every command's constructor takes
// them and its command reads and writes only these, so a test builds a
// command, or the whole tree, on buffers (streams_test.go keeps it so).
type streams struct {
	in          io.Reader
	out, errOut io.Writer
}

// osStreams are the process's standard streams: the only place labctl
// names them.
func osStreams() streams { return streams{in: os.Stdin, out: os.Stdout, errOut: os.Stderr} }

// orProcess fills a nil stream with the process's own.
func (s streams) orProcess() streams {
	p := osStreams()
	if s.in == nil {
		s.in = p.in
	}
	if s.out == nil {
		s.out = p.out
	}
	if s.errOut == nil {
		s.errOut = p.errOut
	}
	return s
}

// Command groups of `labctl --help`, in the order a user meets them.
const (
	groupLab   = "lab"
	groupSuite = "suite"
	groupFiles = "files"
	groupLocal = "local"
)

// newRootCommand builds labctl's whole command tree, fresh on every call.
// A nil stream is the process's own.
func newRootCommand(s streams) *cobra.Command {
	s = s.orProcess()
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	root := &cobra.Command{
		Use:           "labctl",
		Short:         "Build the multi-tenant GPU lab (Kamaji + HAMi), test it and report",
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version prints the same text as `labctl version`.
		Version: versionText(info),
	}
	root.SetVersionTemplate("{{.Version}}")
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.errOut)
	root.SetFlagErrorFunc(flagError)
	// The groups list their commands in the order below, the order a user
	// needs them (up before down), not alphabetically.
	cobra.EnableCommandSorting = false
	root.AddGroup(
		&cobra.Group{ID: groupLab, Title: "The lab:"},
		&cobra.Group{ID: groupSuite, Title: "The conformance suite:"},
		&cobra.Group{ID: groupFiles, Title: "Lab files:"},
		&cobra.Group{ID: groupLocal, Title: "The local test environment (no images, no Docker):"},
	)
	add := func(group string, cmds ...*cobra.Command) {
		for _, c := range cmds {
			c.GroupID = group
			root.AddCommand(c)
		}
	}
	add(groupLab, newUpCommand(s), newDownCommand(s), newStatusCommand(s), newShellCommand(s), newKubeconfigCommand(s), newRunCommand(s))
	add(groupSuite, newTestCommand(s), newReportCommand(s))
	add(groupFiles, newPlanCommand(s), newValidateCommand(s), newImagesCommand(s))
	add(groupLocal, newTestenvCommand(s))
	root.AddCommand(newVersionCommand(s), newInternalCommand(s))
	rejectUnknownSubcommands(root)
	return root
}

// newInternalCommand is `labctl internal …`: the programs helm and the
// local test environment run, hidden from a user's help. They are
// subcommands of labctl so that one binary is all either needs, under one
// name that says they are not a user's.
func newInternalCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:    "internal",
		Short:  "Programs the lab runs itself (HAMi post-renderer, HAMi protocol double); not for users",
		Hidden: true,
	}
	cmd.AddCommand(newPostRenderCommand(s), newHAMiDoubleCommand(s))
	// Hidden is what keeps them out of `labctl --help`; under internal,
	// which is hidden itself, `labctl internal --help` lists them.
	for _, c := range cmd.Commands() {
		c.Hidden = false
	}
	return cmd
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := osStreams()
	root := newRootCommand(s)
	err := withCommandHint(root, root.ExecuteContext(ctx))
	var ee exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		os.Exit(ee.code)
	default:
		fmt.Fprintln(s.errOut, "labctl:", err)
		os.Exit(1)
	}
}
