package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/stages"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

func newDownCommand(s streams) *cobra.Command {
	var f labFlags
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Remove the lab: worker containers, the kind cluster and the state labctl wrote for them (diagnostics stay)",
		Long: `Remove what the state dir records: for a lab of ` + "`labctl up`" + `, its worker containers, its kind
cluster and the kubeconfigs, values and stage records labctl wrote (the resolved lab, the
backend line and diagnostics stay); for a stopped local test environment, all the state labctl
wrote for it. A directory labctl did not make (no labctl-state.json) is refused before anything
is touched, and files labctl did not write always stay. A local test environment that still
runs is refused too: stop ` + "`labctl testenv up`" + ` first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDown(cmd.Context(), s, &f)
		},
	}
	f.register(cmd, true)
	return cmd
}

func runDown(ctx context.Context, s streams, f *labFlags) error {
	d := state.Dir(f.stateDir)
	m, err := d.Marker()
	if err != nil {
		return fmt.Errorf("down: %w", err)
	}
	l, err := f.loadLab(needsState)
	if err != nil {
		return fmt.Errorf("down: %w", err)
	}
	release, err := d.Hold("labctl down")
	if err != nil {
		if m.Kind == state.Testenv {
			return fmt.Errorf("down: the local test environment of lab %s still runs: %w; stop it (Ctrl-C where it runs), "+
				"then `labctl down --state-dir %s` removes its stale state", l.Name, err, d)
		}
		return fmt.Errorf("down: %w; wait for it to end", err)
	}
	defer release()
	out := s.out
	if m.Kind == state.Testenv {
		removed, err := d.RemoveAll()
		printRemoved(out, removed)
		if err != nil {
			return fmt.Errorf("down: %w", err)
		}
		fmt.Fprintf(out, "lab %s: removed the stale state of the stopped local test environment (%d paths labctl "+
			"wrote in %s); its processes ended with `labctl testenv up`\n", l.Name, len(removed), d)
		return nil
	}
	e, err := newEnv(l, f, s.errOut)
	if err != nil {
		return err
	}
	removed, err := stages.Down(ctx, e)
	printRemoved(out, removed)
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		fmt.Fprintf(out, "lab %s: nothing to remove\n", l.Name)
	}
	return nil
}

func printRemoved(w io.Writer, removed []string) {
	for _, r := range removed {
		fmt.Fprintln(w, "removed", r)
	}
}
