package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/stages"
)

func init() {
	var f labFlags
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Remove the lab: worker containers, the kind cluster and their state (diagnostics stay)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := f.loadLab()
			if err != nil {
				return err
			}
			e, err := newEnv(l, &f, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			removed, err := stages.Down(cmd.Context(), e)
			for _, r := range removed {
				fmt.Fprintln(cmd.OutOrStdout(), "removed", r)
			}
			if err != nil {
				return err
			}
			if len(removed) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "lab %s: nothing to remove\n", l.Name)
			}
			return nil
		},
	}
	f.register(cmd, true)
	root.AddCommand(cmd)
}
