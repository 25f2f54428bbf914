package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/report"
)

func newReportCommand(s streams) *cobra.Command {
	var from, dir string
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Regenerate every report (junit.xml, summary.md, report.html, diagnostics) from a results.json",
		Example: `  labctl report --from reports/results.json --report-dir reports
  labctl report --from old-run/ --report-dir /tmp/r`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" {
				return fmt.Errorf("--from is required: the results.json of a run (or the report directory holding it)")
			}
			run, err := report.Read(from)
			if err != nil {
				return err
			}
			if err := report.WriteAll(dir, run); err != nil {
				return err
			}
			passed, failed, skipped := run.Counts()
			fmt.Fprintf(s.out, "reports written to %s (%d passed, %d failed, %d skipped)\n", dir, passed, failed, skipped)
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "results.json to read, or a report directory holding one")
	cmd.Flags().StringVar(&dir, "report-dir", "reports", "directory to write the reports into")
	return cmd
}
