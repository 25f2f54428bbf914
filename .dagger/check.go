package main

import (
	"context"
	"fmt"

	"dagger/gpu-lab/labcmd"
)

// UnitTests runs the repository's tests exactly as the README's test
// command does (ci/test.sh: labctl, the local test environment's Kubernetes
// binaries, then go test on every package), in a plain Go container: no
// Docker daemon, no privileged nesting. Tests that need a Docker daemon,
// chromium or xmllint say so and skip. `dagger check` runs it; both CI
// recipes call it before lab-test.
// +check
func (m *GpuLab) UnitTests(ctx context.Context) error {
	_, err := m.goBuilder().
		WithMountedCache(labcmd.QuickCacheDir, dag.CacheVolume(labcmd.K8sBinCache)).
		WithEnvVariable("XDG_CACHE_HOME", labcmd.QuickCacheDir).
		WithDirectory(labcmd.QuickSourceDir, m.Source).
		WithWorkdir(labcmd.QuickSourceDir).
		WithExec(labcmd.UnitTests()).
		Sync(ctx)
	if err != nil {
		return fmt.Errorf("unit tests (%s): %w", labcmd.UnitTestCommand, err)
	}
	return nil
}
