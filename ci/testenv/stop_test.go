package testenv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// checkStopLeavesNoProcess holds that Stop ends every process the
// environment started, including their process groups, and removes the
// temporary work dir. TestSharedEnvironment runs it last on the shared
// environment, after every other test that uses it.
func checkStopLeavesNoProcess(t *testing.T, e *Env) {
	t.Helper()
	procs := e.Processes()
	names := map[string]bool{}
	for _, p := range procs {
		names[p.Name] = true
		if !alive(p.PID) {
			t.Errorf("%s (pid %d) is not running before Stop", p.Name, p.PID)
		}
	}
	want := []string{"etcd"}
	for _, tn := range e.Tenants() {
		for _, c := range []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager",
			"konnectivity-server", "konnectivity-agent", "kwok", "hami-scheduler"} {
			want = append(want, tn+"/"+c)
		}
	}
	for _, want := range want {
		if !names[want] {
			t.Errorf("no process %s among %v", want, procs)
		}
	}
	dir := e.WorkDir()

	if err := e.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	for _, p := range procs {
		if alive(p.PID) {
			t.Errorf("%s (pid %d) still running after Stop", p.Name, p.PID)
		}
		if left := groupMembers(t, p.PID); len(left) > 0 {
			t.Errorf("process group of %s still has pids %v after Stop", p.Name, left)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("work dir %s still exists after Stop (err %v)", dir, err)
	}
	if err := e.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

// A component that dies during start fails Start with its name and the end
// of its log, and nothing is left running.
func TestStartFailureNamesComponentAndLog(t *testing.T) {
	bins := t.TempDir()
	for _, b := range []string{bincache.Etcd, bincache.KubeAPIServer, bincache.KubeScheduler, bincache.KubeControllerManager, bincache.KWOK,
		bincache.ProxyServer, bincache.ProxyAgent} {
		script := "#!/bin/sh\necho \"" + b + ": simulated failure: disk on fire\" >&2\nexit 3\n"
		if err := os.WriteFile(filepath.Join(bins, b), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	work := t.TempDir()
	e, err := Start(context.Background(), lab.Default(), Options{BinDir: bins, WorkDir: work})
	if err == nil {
		_ = e.Stop()
		t.Fatal("Start succeeded with binaries that exit at once")
	}
	for _, want := range []string{"etcd", "unexpectedly", "disk on fire", filepath.Join(work, "etcd.log")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
	for _, p := range e.Processes() {
		if alive(p.PID) {
			t.Errorf("%s (pid %d) still running after a failed Start", p.Name, p.PID)
		}
	}
}

// fakeBins writes every binary as a shell script running script.
func fakeBins(t *testing.T, script string) string {
	t.Helper()
	bins := t.TempDir()
	for _, b := range []string{bincache.Etcd, bincache.KubeAPIServer, bincache.KubeScheduler, bincache.KubeControllerManager, bincache.KWOK,
		bincache.ProxyServer, bincache.ProxyAgent} {
		if err := os.WriteFile(filepath.Join(bins, b), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bins
}

// A failed start removes its temporary work dir (etcd data and logs are tens
// of MB); the error still carries the end of the failing component's log.
func TestFailedStartRemovesTemporaryWorkDir(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	e, err := Start(context.Background(), lab.Default(),
		Options{BinDir: fakeBins(t, "echo 'etcd: simulated failure: disk on fire' >&2\nexit 3"), tempRoot: tmp})
	if err == nil {
		_ = e.Stop()
		t.Fatal("Start succeeded with binaries that exit at once")
	}
	for _, want := range []string{"etcd", "disk on fire", "removed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temporary directory after a failed Start: %v", left)
	}
}

// A start whose context is cancelled returns ErrInterrupted without the
// components' logs, stops what had started and removes its work dir.
func TestInterruptedStartStopsAndCleansUp(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		e   *Env
		err error
	}
	done := make(chan result, 1)
	go func() {
		e, err := Start(ctx, lab.Default(), Options{BinDir: fakeBins(t, "echo 'etcd: never ready'\nexec sleep 600"), tempRoot: tmp})
		done <- result{e, err}
	}()
	var logPath string
	for logPath == "" { // synchronisation point: etcd runs
		if logs, _ := filepath.Glob(filepath.Join(tmp, "gpulab-*", "etcd.log")); len(logs) > 0 && fileHas(logs[0], "never ready") {
			logPath = logs[0]
		}
		select {
		case r := <-done:
			t.Fatalf("Start returned before it was interrupted: %v", r.err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	r := <-done
	if !errors.Is(r.err, ErrInterrupted) || !errors.Is(r.err, context.Canceled) {
		t.Errorf("Start = %v, want ErrInterrupted wrapping context.Canceled", r.err)
	}
	if r.err != nil && strings.Contains(r.err.Error(), "never ready") {
		t.Errorf("interrupted Start repeats component logs:\n%v", r.err)
	}
	for _, p := range r.e.Processes() {
		if alive(p.PID) {
			t.Errorf("%s (pid %d) still running after an interrupted Start", p.Name, p.PID)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temporary directory after an interrupted Start: %v", left)
	}
}

func fileHas(path, s string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), s)
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

// groupMembers lists live processes whose process group is pgid.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var out []int
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + ent.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		// fields after "(comm)": state ppid pgrp ...
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			out = append(out, pid)
		}
	}
	return out
}
