package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func init() { root.AddCommand(newValidateCommand()) }

func newValidateCommand() *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:     "validate",
		Short:   "Check a lab file and list every problem in it; exit 0 when it is valid",
		Example: `  labctl validate -f lab.yaml`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := lab.Load(file)
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), err)
				return exitError{code: 1}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ok: lab %s: %s\n", l.Name, summary(l))
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "lab file (YAML or JSON) to check; empty means the embedded seed lab")
	return cmd
}
