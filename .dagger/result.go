package main

import (
	"context"
	"fmt"

	"dagger/gpu-lab/internal/dagger"
	"dagger/gpu-lab/labcmd"
)

// LabResult is the outcome of a lab run.
type LabResult struct {
	// Reports: junit.xml, results.json, summary.md, report.html and
	// diagnostics/ from labctl, plus logs/ (one log per stage and the suite),
	// state/ (stages.json) and exit-code.
	Reports *dagger.Directory
	// labctl's exit code: 0 when every stage and every selected case passed.
	ExitCode int
}

// Check fails when the run failed, with the summary as the message.
func (r *LabResult) Check(ctx context.Context) (string, error) {
	summary, _ := r.Reports.File("summary.md").Contents(ctx) // absent when nothing ran
	if err := labcmd.Verdict(r.ExitCode, summary); err != nil {
		return "", err
	}
	return "lab-test passed", nil
}

// CheckReports fails when an exported reports directory records a failed
// run (its exit-code file is not 0). It needs no Docker and re-runs nothing:
// CI calls it after `lab-test export --path=reports`.
func (m *GpuLab) CheckReports(
	ctx context.Context,
	// A reports directory exported from lab-test.
	reports *dagger.Directory,
) (string, error) {
	raw, err := reports.File(labcmd.ExitCodeFile).Contents(ctx)
	if err != nil {
		return "", fmt.Errorf("reports: no %s file; export the reports of lab-test first: %w", labcmd.ExitCodeFile, err)
	}
	code, err := labcmd.ParseExitCode(raw)
	if err != nil {
		return "", err
	}
	return (&LabResult{Reports: reports, ExitCode: code}).Check(ctx)
}
