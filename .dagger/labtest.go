package main

import (
	"context"

	"dagger/gpu-lab/internal/dagger"
)

// LabTest brings up the whole lab (cluster, kamaji, tenants, workers, hami,
// gpus) in a fresh Docker-in-Docker service, runs the conformance suite and
// returns the reports directory (junit.xml, results.json, summary.md,
// report.html, diagnostics/, logs/ and exit-code). It returns normally when
// stages or cases fail, so the reports can always be exported; run
// `check-reports --reports=reports` afterwards to fail the CI step.
// +cache="never"
func (m *GpuLab) LabTest(
	ctx context.Context,
	// Lab file (YAML); defaults to the seed lab: tenant-a with one A100 80GB,
	// tenant-b with two L4.
	// +optional
	config *dagger.File,
	// Version overrides written into the lab file's versions block, as
	// name=value (e.g. kubernetes=v1.35.8, hamiChart=2.10.0).
	// +optional
	versions []string,
	// Regular expression selecting suite cases by ID or name (e.g. 'TC-0[1-4]');
	// empty runs every case.
	// +optional
	run string,
	// Maximum number of cases running at once; 0 (labctl's default) runs them all at once.
	// +optional
	parallel int,
	// Keep going after a failing stage: run the remaining stages and the
	// suite anyway, so every failure shows up in one report.
	// +optional
	keepGoing bool,
) (*dagger.Directory, error) {
	res, err := m.LabRun(ctx, config, versions, run, parallel, keepGoing)
	if err != nil {
		return nil, err
	}
	return res.Reports, nil
}

// LabRun is lab-test returning a result object: the reports, labctl's exit
// code and a check that fails when the run failed (for pipelines that want
// the verdict without exporting first).
// +cache="never"
func (m *GpuLab) LabRun(
	ctx context.Context,
	// Lab file (YAML); defaults to the seed lab: tenant-a with one A100 80GB,
	// tenant-b with two L4.
	// +optional
	config *dagger.File,
	// Version overrides written into the lab file's versions block, as
	// name=value (e.g. kubernetes=v1.35.8, hamiChart=2.10.0).
	// +optional
	versions []string,
	// Regular expression selecting suite cases by ID or name (e.g. 'TC-0[1-4]');
	// empty runs every case.
	// +optional
	run string,
	// Maximum number of cases running at once; 0 (labctl's default) runs them all at once.
	// +optional
	parallel int,
	// Keep going after a failing stage: run the remaining stages and the
	// suite anyway, so every failure shows up in one report.
	// +optional
	keepGoing bool,
) (*LabResult, error) {
	lab, err := m.Lab(ctx, config, versions, keepGoing)
	if err != nil {
		return nil, err
	}
	return lab.Up().Test(ctx, run, parallel)
}
