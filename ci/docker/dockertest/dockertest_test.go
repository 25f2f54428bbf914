package dockertest

import (
	"context"
	"testing"
	"time"
)

// Without a docker CLI on PATH the test is skipped, not failed.
func TestDaemonSkipsWithoutTheCLI(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var reached bool
	t.Run("inner", func(t *testing.T) {
		Daemon(t)
		reached = true
	})
	if reached {
		t.Error("Daemon returned although no docker CLI is on PATH; it should have skipped the test")
	}
}

// Where a daemon answers, the CLI Daemon returns reaches it.
func TestDaemonAnswers(t *testing.T) {
	c := Daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Ping(ctx); err != nil {
		t.Errorf("the CLI Daemon returned does not reach the daemon: %v", err)
	}
}
