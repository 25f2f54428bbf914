package main

import (
	"context"
	"fmt"
	"strconv"

	"dagger/gpu-lab/internal/dagger"
	"dagger/gpu-lab/labcmd"
)

// QuickTest runs the conformance suite against the local test environment
// with HAMi's real scheduler, in one plain container: no Docker daemon, no
// privileged nesting. The Kubernetes components (kube-apiserver,
// kube-scheduler, kube-controller-manager, etcd, konnectivity, KWOK) run as
// processes, built from ci/testenv/k8sbin and cached on Go build cache
// volumes; HAMi's scheduler is the binary of the official image of the lab's
// pinned version (docker.io/projecthami/hami:<versions.hamiImage>),
// started with the arguments, environment and files HAMi's chart gives it.
// Workers are KWOK nodes with simulated GPUs (see the README's differences).
// It returns the reports (junit.xml, results.json, summary.md, report.html,
// logs/testenv.log, logs/quick-test.log, exit-code) and returns normally
// when cases fail; run `check-reports --reports=…` afterwards to fail CI.
// +cache="never"
func (m *GpuLab) QuickTest(ctx context.Context) (*dagger.Directory, error) {
	lab, err := m.Lab(ctx)
	if err != nil {
		return nil, err
	}
	raw, err := lab.Config.Contents(ctx)
	if err != nil {
		return nil, fmt.Errorf("lab file: %w", err)
	}
	image, err := labcmd.HAMiImage([]byte(raw))
	if err != nil {
		return nil, err
	}
	hami := dag.Container().From(image).File(labcmd.HAMiSchedulerInImage)
	// Build first: a build error is the call's error, not the suite's.
	runner, err := m.goBuilder().
		WithMountedCache(labcmd.QuickCacheDir, dag.CacheVolume(labcmd.K8sBinCache)).
		WithEnvVariable("XDG_CACHE_HOME", labcmd.QuickCacheDir).
		WithDirectory(labcmd.QuickSourceDir, m.Source, dagger.ContainerWithDirectoryOpts{Include: labcmd.QuickInclude,
			Exclude: labcmd.BuildExclude}).
		WithEnvVariable(labcmd.K8sBinSourceEnv, labcmd.QuickSourceDir+"/ci/testenv/k8sbin").
		WithFile(labcmd.LabctlPath, lab.Labctl, dagger.ContainerWithFileOpts{Permissions: 0o755}).
		WithFile(labcmd.QuickHAMiPath, hami, dagger.ContainerWithFileOpts{Permissions: 0o755}).
		WithFile(labcmd.ConfigPath, lab.Config).
		WithDirectory(labcmd.StateDir, dag.Directory()).
		WithDirectory(labcmd.ReportDir, dag.Directory()).
		WithWorkdir(labcmd.WorkDir).
		WithExec(labcmd.QuickBuild()).
		Sync(ctx)
	if err != nil {
		return nil, fmt.Errorf("building the local test environment (labctl, Kubernetes binaries, %s): %w", image, err)
	}
	ctr, err := runner.
		WithEnvVariable(labcmd.NonceEnv, nonce()).
		WithExec(labcmd.QuickTest(m.suite()), dagger.ContainerWithExecOpts{Expect: dagger.ReturnTypeAny}).
		Sync(ctx)
	if err != nil {
		return nil, fmt.Errorf("quick test: %w", err)
	}
	code, err := ctr.ExitCode(ctx)
	if err != nil {
		return nil, err
	}
	out, err := ctr.CombinedOutput(ctx)
	if err != nil {
		return nil, err
	}
	return ctr.Directory(labcmd.ReportDir).
		WithNewFile("logs/quick-test.log", out).
		WithNewFile(labcmd.ExitCodeFile, strconv.Itoa(code)+"\n").
		Sync(ctx)
}
