package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/stages"
)

func init() {
	var f upFlags
	var reportDir, runRe string
	var parallel int
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Build the lab, run the suite, write the reports, remove the lab (what CI calls)",
		Long: `run = up + test + down. It checks first that the daemon has (or can pull within
--pull-timeout) the kind node and worker images, so a daemon without registry access fails in
seconds with a message instead of hanging. The lab is removed at the end unless --keep.`,
		Example: `  labctl run --report-dir reports
  labctl run -f lab.yaml --run 'TC-0[1-4]' --keep`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if f.dryRun {
				return runUp(ctx, cmd, &f)
			}
			if err := runUp(ctx, cmd, &f); err != nil {
				return err
			}
			testErr := runTest(ctx, f.stateDir, reportDir, runRe, parallel)
			if f.keep {
				fmt.Fprintf(cmd.OutOrStdout(), "--keep: the lab stays up (`labctl down --state-dir %s` removes it)\n", f.stateDir)
				return testErr
			}
			l, err := f.loadLab()
			if err != nil {
				return errors.Join(testErr, err)
			}
			e, err := newEnv(l, &f.labFlags, cmd.ErrOrStderr())
			if err != nil {
				return errors.Join(testErr, err)
			}
			down, cancel := context.WithCancel(context.WithoutCancel(ctx))
			defer cancel()
			if _, err := stages.Down(down, e); err != nil {
				return errors.Join(testErr, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "lab %s removed\n", l.Name)
			return testErr
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&reportDir, "report-dir", "reports", "directory for junit.xml, results.json, summary.md, report.html")
	cmd.Flags().StringVar(&runRe, "run", "", "run only the cases whose ID matches `REGEXP` (passed on to labctl test --run)")
	cmd.Flags().IntVar(&parallel, "parallel", 0, "run at most `N` cases at once (passed on to labctl test --parallel; 0 = its default)")
	root.AddCommand(cmd)
}

// runTest runs the `labctl test` subcommand in-process against the lab's
// state dir; its exit code (failed cases) comes back as its error.
func runTest(ctx context.Context, stateDir, reportDir, runRe string, parallel int) error {
	test, _, err := root.Find([]string{"test"})
	if err != nil || test == nil || test.Name() != "test" || test.RunE == nil {
		return fmt.Errorf("this labctl has no `test` command: build it from a tree that has ci/suite")
	}
	args := []string{"--state-dir", stateDir, "--report-dir", reportDir}
	if runRe != "" {
		args = append(args, "--run", runRe)
	}
	if parallel > 0 {
		args = append(args, "--parallel", strconv.Itoa(parallel))
	}
	if err := test.ParseFlags(args); err != nil {
		return fmt.Errorf("labctl test %v: %w", args, err)
	}
	// test prints through root's writers (it inherits them); setting its own
	// would outlive this call.
	test.SetContext(ctx)
	defer test.SetContext(nil) // a later in-process Execute must pass its own
	return test.RunE(test, nil)
}
