package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SoakFile is a soak's summary, in the soak's reports directory.
const SoakFile = "soak.md"

// soakRun is one rehearsal of a soak and how it ended.
type soakRun struct {
	Report Report
	Err    error
	Wall   time.Duration
}

// Soak runs the rehearsal n times in a row from one bundle (issue 43's
// repetition): run K's reports go to o.Reports/run-K, and after each run
// o.Reports/soak.md summarises all so far (a killed soak keeps them). A
// failed run does not end the soak — each failure is a finding, so the
// later runs still say whether it repeats — but the soak fails, naming
// every failed run. Keep is refused: the next run would undo the kept lab.
func Soak(ctx context.Context, o Options, d Deps, n int) error {
	if err := CheckSoak(o, n); err != nil {
		return err
	}
	base := o.Reports
	if err := os.MkdirAll(base, 0o755); err != nil {
		return fmt.Errorf("soak: reports directory %s: %w", base, err)
	}
	var runs []soakRun
	for i := 1; i <= n && ctx.Err() == nil; i++ {
		oi := o
		oi.Reports = filepath.Join(base, fmt.Sprintf("run-%d", i))
		if o.Log != nil {
			oi.Log = o.Log.With("run", fmt.Sprintf("%d/%d", i, n))
		}
		began := d.now()
		r, err := Run(ctx, oi, d)
		runs = append(runs, soakRun{Report: r, Err: err, Wall: d.now().Sub(began)})
		if werr := os.WriteFile(filepath.Join(base, SoakFile), []byte(soakMarkdown(runs, n)), 0o644); werr != nil {
			return fmt.Errorf("soak: write %s: %w", SoakFile, werr)
		}
	}
	var failed []string
	for i, r := range runs {
		if r.Err != nil {
			failed = append(failed, fmt.Sprintf("run %d: %v", i+1, r.Err))
		}
	}
	if len(runs) < n {
		failed = append(failed, fmt.Sprintf("stopped after %d of %d runs: %v", len(runs), n, ctx.Err()))
	}
	if len(failed) > 0 {
		return fmt.Errorf("soak: %s (each run's rehearsal.md is in %s/run-K)", strings.Join(failed, "; "), base)
	}
	return nil
}

// CheckSoak refuses a soak of n runs with these options: what Soak would
// refuse, said before anything is built.
func CheckSoak(o Options, n int) error {
	if n < 1 {
		return fmt.Errorf("soak: %d runs: want at least one", n)
	}
	if o.Keep {
		return errors.New("soak: --keep leaves a lab up that the next run would remove first: run once with --keep instead")
	}
	if o.Fault != "" || o.Interrupt != nil {
		return errors.New("soak: repeats the plain rehearsal; a fault or an interruption is one run's experiment")
	}
	return nil
}

// soakMarkdown is the soak's summary: a row per run with its result, the
// walls of labctl up, the suite (as results.json says) and labctl down, the
// whole run's, and its peaks; then how many of the planned runs passed.
func soakMarkdown(runs []soakRun, planned int) string {
	var b strings.Builder
	date := "no run"
	if len(runs) > 0 {
		date = runs[0].Report.Date.UTC().Format("2006-01-02 15:04 UTC")
	}
	fmt.Fprintf(&b, "# Soak of the real lab: %d rehearsals in a row from one bundle (first began %s)\n\n", planned, date)
	b.WriteString("| run | result | up | suite | down | run wall | containers' memory peak | disk peak |\n|---|---|---|---|---|---|---|---|\n")
	passed := 0
	for i, r := range runs {
		if r.Err == nil {
			passed++
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s |\n", i+1, soakResult(r),
			stepWall(r.Report, stepUp), suiteWall(r.Report), stepWall(r.Report, stepDown),
			r.Wall.Round(time.Second), human(r.Report.Peak.MemoryPeakBytes), human(r.Report.Peak.DiskBytes))
	}
	fmt.Fprintf(&b, "\n**%d of %d planned runs passed**", passed, planned)
	if len(runs) < planned {
		fmt.Fprintf(&b, " (%d ran)", len(runs))
	}
	b.WriteString(". Each run's report: run-K/" + ReportFile + ".\n")
	return b.String()
}

// soakResult is a run's result cell: the suite's counts when it passed,
// else the first line of what ended it.
func soakResult(r soakRun) string {
	s := r.Report.Suite
	if r.Err == nil && s != nil {
		return fmt.Sprintf("passed: %d passed, %d skipped", s.Passed, s.Skipped)
	}
	if r.Err == nil {
		return "passed"
	}
	msg, _, _ := strings.Cut(r.Err.Error(), "\n")
	return "**failed:** " + strings.ReplaceAll(msg, "|", `\|`)
}

// stepWall is the wall of the report's last step st, "—" when it did not run.
func stepWall(r Report, st step) string {
	for i := len(r.Steps) - 1; i >= 0; i-- {
		if r.Steps[i].Step == st {
			return r.Steps[i].Wall.Round(100 * time.Millisecond).String()
		}
	}
	return "—"
}

func suiteWall(r Report) string {
	if r.Suite == nil {
		return "—"
	}
	return r.Suite.Duration.Round(100 * time.Millisecond).String()
}
