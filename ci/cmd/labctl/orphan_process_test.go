package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// `labctl testenv up` started in the background by a shell that then dies
// (SIGKILL: it cannot pass anything on) stops the environment by itself:
// it says why, stops every component and exits. This is the README's
// background form with `go run`, whose go process is that shell here.
func TestTestenvUpStopsWhenItsParentIsGone(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a local environment (real Kubernetes processes); skipped with -short")
	}
	t.Parallel()
	ctx := context.Background()
	bins, err := bincache.EnsureBinaries(ctx, nil)
	if err != nil {
		t.Fatalf("the Kubernetes test binaries: %v", err)
	}
	labctl, err := bincache.EnsureDoubleBinary(ctx, nil)
	if err != nil {
		t.Fatalf("labctl built from this checkout: %v", err)
	}
	dir := t.TempDir()
	work, logPath := filepath.Join(dir, "work"), filepath.Join(dir, "labctl.log")
	sh := exec.Command("sh", "-c", `"$0" testenv up --state-dir "$1" --bin-dir "$2" --work-dir "$3" >"$4" 2>&1 & echo $!; wait`,
		labctl, filepath.Join(dir, "state"), bins, work, logPath)
	stdout, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	pid, convErr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || convErr != nil {
		_ = sh.Process.Kill()
		t.Fatalf("the shell did not say labctl's pid: %q, %v, %v", line, err, convErr)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })

	// Minutes only bound a boot that never comes (it takes seconds).
	if !waitFor(3*time.Minute, func() bool { return strings.Contains(readFile(logPath), "\nready\n") }) {
		_ = sh.Process.Kill()
		t.Fatalf("the environment did not get ready; labctl's output:\n%s", readFile(logPath))
	}
	components := processesUnder(work)
	if len(components) == 0 {
		t.Fatalf("no process runs from the work dir %s; the test cannot see what it checks", work)
	}
	if err := sh.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = sh.Wait()

	if !waitFor(2*time.Minute, func() bool { return !alive(pid) }) {
		t.Fatalf("labctl (pid %d) still runs a while after its parent was killed; its output:\n%s", pid, readFile(logPath))
	}
	out := readFile(logPath)
	if !strings.Contains(out, "stopping: "+errOrphaned.Error()) || !strings.Contains(out, "\nstopped\n") {
		t.Errorf("labctl's output does not say it stopped because its parent is gone:\n%s", out)
	}
	for _, p := range components {
		if alive(p) {
			t.Errorf("component pid %d (%s) outlived labctl", p, cmdline(p))
		}
	}
}

func readFile(path string) string { b, _ := os.ReadFile(path); return string(b) }

func waitFor(bound time.Duration, ok func() bool) bool {
	for deadline := time.Now().Add(bound); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if ok() {
			return true
		}
	}
	return ok()
}

// alive: the process exists and is not a zombie waiting for a parent that
// does not reap (proc(5): /proc/<pid>/stat's third field).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.ReplaceAll(string(b), "\x00", " ")
}

// processesUnder lists the live processes whose command line names dir (the
// components are started with their data and config paths in the work dir).
func processesUnder(dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err == nil && alive(pid) && strings.Contains(cmdline(pid), dir) {
			pids = append(pids, pid)
		}
	}
	return pids
}
