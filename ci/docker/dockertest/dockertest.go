// Package dockertest gives tests that drive the real Docker daemon a client
// for it, or skips them where no daemon answers: such a test proves
// Docker-facing code against the real thing, and a machine without Docker
// cannot run it.
package dockertest

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker"
)

// Daemon returns a CLI for the real Docker daemon, or skips the test,
// saying why, when there is no docker CLI or no daemon answers it within
// ten seconds.
func Daemon(t testing.TB) docker.CLI {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("skipping: no docker CLI on PATH (this test drives a real Docker daemon)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := docker.CLI{}
	if _, err := c.Ping(ctx); err != nil {
		t.Skipf("skipping: no Docker daemon answers (%v)", err)
	}
	return c
}
