package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/report"
	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/stages"
	"github.com/gpu-lab/gpu-lab/ci/suite"
)

func newRunCommand(s streams) *cobra.Command {
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
				return runUp(ctx, s, &f)
			}
			started := time.Now()
			if err := runUp(ctx, s, &f); err != nil {
				return errors.Join(err, writeUpFailureReports(ctx, s.out, &f, reportDir, runRe, started, err))
			}
			test := newTestCommand(s)
			testErr := runTest(ctx, test, f.stateDir, reportDir, runRe, parallel)
			if f.keep {
				fmt.Fprintf(s.out, "--keep: the lab stays up (`labctl down --state-dir %s` removes it)\n", f.stateDir)
				return testErr
			}
			l, err := f.loadLab(needsState)
			if err != nil {
				return errors.Join(testErr, err)
			}
			e, err := newEnv(l, &f.labFlags, s.errOut)
			if err != nil {
				return errors.Join(testErr, err)
			}
			release, err := e.State.Hold("labctl run")
			if err != nil {
				return errors.Join(testErr, err)
			}
			defer release()
			down, cancel := context.WithCancel(context.WithoutCancel(ctx))
			defer cancel()
			if _, err := stages.Down(down, e); err != nil {
				return errors.Join(testErr, err)
			}
			fmt.Fprintf(s.out, "lab %s removed\n", l.Name)
			return testErr
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&reportDir, "report-dir", "reports", "directory for junit.xml, results.json, summary.md, report.html")
	cmd.Flags().StringVar(&runRe, "run", "", "run only the cases whose ID matches `REGEXP` (passed on to labctl test --run)")
	cmd.Flags().IntVar(&parallel, "parallel", 0, "run at most `N` cases at once (passed on to labctl test --parallel; 0 = its default)")
	return cmd
}

// runTest runs test, a fresh `labctl test` command, in-process against
// the lab's state dir; its exit code (failed cases) comes back as its error.
func runTest(ctx context.Context, test *cobra.Command, stateDir, reportDir, runRe string, parallel int) error {
	args := []string{"--state-dir", stateDir, "--report-dir", reportDir}
	if runRe != "" {
		args = append(args, "--run", runRe)
	}
	if parallel > 0 {
		args = append(args, "--parallel", strconv.Itoa(parallel))
	}
	if err := test.ParseFlags(args); err != nil {
		return fmt.Errorf("labctl test %s: %w", strings.Join(args, " "), err)
	}
	test.SetContext(ctx)
	return test.RunE(test, nil)
}

// writeUpFailureReports writes the reports of a `labctl run` whose lab did
// not come up: the suite never runs, but CI still reads --report-dir (and
// the README promises reports for every run).
func writeUpFailureReports(ctx context.Context, out io.Writer, f *upFlags, reportDir, runRe string, started time.Time, upErr error) error {
	name, backend := "", stages.Backend(stages.Reach{})
	if l, err := f.loadLab(makesState); err == nil {
		name = l.Name
	}
	if reach, err := stages.ReachFor(os.Getenv("DOCKER_HOST")); err == nil {
		backend = stages.Backend(reach)
	}
	run := upFailureRun(name, backend, started, time.Since(started), upErr, f.stateDir, runRe)
	run.Interrupted = ctx.Err() != nil
	if err := report.WriteAll(reportDir, run); err != nil {
		return fmt.Errorf("write reports to %s: %w", reportDir, err)
	}
	fmt.Fprintf(out, "reports written to %s (the lab did not come up; no case ran)\n", reportDir)
	return nil
}

// upFailureRun is the run the reports show when `labctl run` fails before
// the suite: one failed case for bringing the lab up (the preflight or the
// stage that failed, with the error) and every selected case as not run,
// so CI test views show the failure and what it prevented.
func upFailureRun(labName, backend string, started time.Time, took time.Duration, upErr error, stateDir, runRe string) *results.Run {
	where, details := "before any stage", "No stage ran: the Docker daemon must answer and have, or pull within --pull-timeout, "+
		"the kind node and worker images. Without registry access or privileged containers, use the local test environment "+
		"(labctl testenv up, then labctl test; see README)."
	var se *stages.Error
	if errors.As(upErr, &se) {
		where = "in stage " + se.Stage
		details = fmt.Sprintf("Stage %s failed; labctl's diagnostics bundle, when it could write one, "+
			"is in %s/diagnostics/, and labctl status --state-dir %s shows every stage.", se.Stage, stateDir, stateDir)
	}
	msg, _, _ := strings.Cut(upErr.Error(), "\n")
	r := &results.Run{
		Schema: results.SchemaVersion, Lab: labName, Backend: backend, Started: started, Duration: results.Duration(took),
		Cases: []results.Case{{
			ID: upCaseID, Title: "The lab comes up (preflight, then stages " + strings.Join(stages.Names, " → ") + ")",
			Status: results.Failed, Started: started, Duration: results.Duration(took),
			Message: "failed " + where + ": " + msg,
			Details: upErr.Error() + "\n\n" + details,
		}},
	}
	sel, err := regexp.Compile(runRe)
	if err != nil {
		sel = regexp.MustCompile("") // labctl test would reject it; show every case
	}
	for _, c := range suite.Cases() {
		if !sel.MatchString(c.ID) {
			continue
		}
		r.Cases = append(r.Cases, results.Case{ID: c.ID, Title: c.Title, Status: results.Skipped, Started: started,
			Message: "not run: the lab did not come up (" + upCaseID + " failed " + where + ")"})
	}
	return r
}

// upCaseID names the case that stands for bringing the lab up.
const upCaseID = "LAB-UP"
