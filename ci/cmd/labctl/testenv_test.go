package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// fakeBinaries writes every binary the environment starts as a script that
// runs script.
func fakeBinaries(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	for _, b := range []string{"etcd-embed", "kube-apiserver", "kube-scheduler", "kube-controller-manager", "kwok",
		"proxy-server", "proxy-agent"} {
		if err := os.WriteFile(filepath.Join(dir, b), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Ctrl-C while the environment boots says "interrupted", prints no server
// logs, and leaves no work directory behind.
func TestTestenvUpInterruptedWhileBooting(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where Start makes its temporary work dir
	// etcd never gets ready: the boot waits until it is interrupted.
	bins := fakeBinaries(t, "echo 'fake etcd: starting, never ready'\nexec sleep 600")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- runTestenvUp(ctx, testenvUp{stateDir: state.Dir(filepath.Join(t.TempDir(), "state")), binDir: bins}, &out, &errOut)
	}()
	waitForFile(t, done, func() bool {
		logs, _ := filepath.Glob(filepath.Join(tmp, "gpulab-*", "etcd.log"))
		return len(logs) > 0 && fileContains(logs[0], "never ready")
	})
	cancel() // what SIGINT does to the command's context (main.go)
	err := <-done

	var ee exitError
	if !errors.As(err, &ee) || ee.code != 130 {
		t.Errorf("runTestenvUp = %v, want exit code 130", err)
	}
	if !strings.Contains(out.String(), "interrupted\n") {
		t.Errorf("output lacks \"interrupted\":\n%s", out.String())
	}
	for _, noise := range []string{"never ready", "ends with", "ready\n"} {
		if strings.Contains(out.String()+errOut.String(), noise) {
			t.Errorf("output shows %q:\n%s\n%s", noise, out.String(), errOut.String())
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temporary directory after the interrupt: %v", left)
	}
}

// A start that fails names the component, and its temporary work dir is
// gone as well.
func TestTestenvUpFailedStartRemovesWorkDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	bins := fakeBinaries(t, "echo 'simulated failure: disk on fire' >&2\nexit 3")
	var out, errOut bytes.Buffer
	err := runTestenvUp(context.Background(), testenvUp{stateDir: state.Dir(filepath.Join(t.TempDir(), "state")), binDir: bins}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "etcd") || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("runTestenvUp = %v, want an error naming etcd and its log", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temporary directory after a failed start: %v", left)
	}
}

func TestTestenvBuildPrintsDirOrInterrupted(t *testing.T) {
	var out, errOut bytes.Buffer
	built := func(context.Context, *slog.Logger) (string, error) { return "/cache/k8sbin/v1.36.3-abc", nil }
	if err := runTestenvBuild(context.Background(), built, &out, &errOut); err != nil || out.String() != "/cache/k8sbin/v1.36.3-abc\n" {
		t.Errorf("built: err %v, output %q", err, out.String())
	}

	out.Reset()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cancelled := func(ctx context.Context, _ *slog.Logger) (string, error) { return "", ctx.Err() }
	err := runTestenvBuild(ctx, cancelled, &out, &errOut)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 130 || out.String() != "interrupted\n" {
		t.Errorf("interrupted: err %v, output %q", err, out.String())
	}
}

// waitForFile polls until ready (a synchronisation point, not a timing) or
// the command under test returned early.
func waitForFile(t *testing.T, done chan error, ready func() bool) {
	t.Helper()
	for !ready() {
		select {
		case err := <-done:
			t.Fatalf("command returned before the point the test waits for: %v", err)
		default:
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fileContains(path, s string) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Contains(b, []byte(s))
}
