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
// `check-reports --reports=reports` afterwards to fail the CI step. The
// lab file, versions and suite selection are the module's options
// (`dagger call --config=my-lab.yaml --run='TC-0[1-4]' lab-test …`).
// +cache="never"
func (m *GpuLab) LabTest(ctx context.Context) (*dagger.Directory, error) {
	res, err := m.LabRun(ctx)
	if err != nil {
		return nil, err
	}
	return res.Reports, nil
}

// LabRun is lab-test returning a result object: the reports, labctl's exit
// code and a check that fails when the run failed (for pipelines that want
// the verdict without exporting first).
// +cache="never"
func (m *GpuLab) LabRun(ctx context.Context) (*LabResult, error) {
	lab, err := m.Lab(ctx)
	if err != nil {
		return nil, err
	}
	return lab.Up().Test(ctx)
}
