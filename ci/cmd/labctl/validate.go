package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func newValidateCommand(s streams) *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "validate [LAB-FILE]",
		Short: "Check a lab file and list every problem in it; exit 0 when it is valid",
		Example: `  labctl validate lab.yaml
  labctl validate -f lab.yaml
  labctl validate                 # the embedded seed lab`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if file != "" && file != args[0] {
					return fmt.Errorf("two lab files: -f %s and %s; give one", file, args[0])
				}
				file = args[0]
			}
			l, err := lab.Load(file)
			if err != nil {
				// Printed here, with main's "labctl:" prefix, so the
				// problems go to the command's own stderr.
				fmt.Fprintln(s.errOut, "labctl:", err)
				return exitError{code: 1}
			}
			fmt.Fprintf(s.out, "ok: lab %s: %s\n", l.Name, summary(l))
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "",
		"lab file (YAML or JSON) to check, also accepted as the argument; empty means the embedded seed lab")
	return cmd
}
