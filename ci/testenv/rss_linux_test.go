package testenv

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
)

// The test process's own status: VmRSS is there and is the sum of the
// three parts Memory splits it into.
func TestReadStatusOfARunningProcess(t *testing.T) {
	st, err := readStatus(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.VmRSS == 0 || st.VmRSS != st.RssAnon+st.RssFile+st.RssShmem {
		t.Errorf("VmRSS %d, RssAnon %d + RssFile %d + RssShmem %d: want VmRSS > 0 and the sum", st.VmRSS, st.RssAnon, st.RssFile, st.RssShmem)
	}
	rss, err := processRSS(os.Getpid())
	if err != nil || rss <= 0 {
		t.Errorf("processRSS(self) = %d, %v", rss, err)
	}
}

// A process that exited but was not waited for (a zombie) has no memory
// lines: that is an error, not 0 bytes.
func TestReadStatusOfAZombieFails(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skipf("no true command: %v", err)
	}
	defer func() { _ = cmd.Wait() }()
	waitState(t, cmd.Process.Pid, "Z")
	if _, err := readStatus(cmd.Process.Pid); err == nil || !strings.Contains(err.Error(), "no VmRSS (a zombie?)") {
		t.Errorf("readStatus(zombie) = %v, want the zombie named", err)
	}
	if _, err := readStatus(1 << 30); err == nil {
		t.Error("readStatus of a pid that does not exist succeeded")
	}
}

// processCPU counts utime and stime: a busy loop of the test's own makes
// it grow.
func TestProcessCPUGrows(t *testing.T) {
	before, err := processCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
	}
	after, err := processCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after <= before {
		t.Errorf("processor time %s after a busy loop, %s before", after, before)
	}
}

// suspended sees SIGSTOP and SIGCONT.
func TestSuspended(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep command: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	if suspended(pid) {
		t.Fatal("a running sleep is reported suspended")
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitState(t, pid, "T")
	if !suspended(pid) {
		t.Error("a stopped sleep is not reported suspended")
	}
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitState(t, pid, "S")
	if suspended(pid) {
		t.Error("a continued sleep is still reported suspended")
	}
}

// waitState waits up to 5 s for pid to reach the state (proc(5)).
func waitState(t *testing.T, pid int, state string) {
	t.Helper()
	var got string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if p, err := procfs.NewProc(pid); err == nil {
			if st, err := p.Stat(); err == nil {
				if got = st.State; got == state {
					return
				}
			}
		}
	}
	t.Fatalf("pid %d in state %q after 5 s, want %q", pid, got, state)
}
