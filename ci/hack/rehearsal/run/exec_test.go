package run

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An interrupted command's whole process group gets the signal: the
// program labctl runs (here a background sleep of the shell) goes too, as
// under a terminal's Ctrl-C or a dead runner.
func TestStopSignalsTheWholeProcessGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var child int
	u, err := Processes{}.run(ctx,
		command{Step: stepUpInterrupted, Args: []string{"sh", "-c", "sleep 120 & echo $!; wait"}, Stop: syscall.SIGKILL},
		io.Discard, func(_ stream, line string) {
			if n, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
				child = n
				cancel()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if u.ExitCode != -1 {
		t.Errorf("exit code %d, want -1 (killed by a signal)", u.ExitCode)
	}
	if child == 0 {
		t.Fatal("the shell never printed its child's PID")
	}
	// Gone, or a zombie waiting for init. SIGKILL is delivered at once but
	// the child may still be on its way out (it closes its files, our pipe
	// among them, before it becomes a zombie), so its end is awaited; it
	// never comes when the child was not signalled (its sleep is 120 s).
	var stat []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if stat, err = os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat"); err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
	}
	_ = syscall.Kill(child, syscall.SIGKILL)
	t.Errorf("the shell's child %d still runs 30 s after the group was killed: %s", child, stat)
}

// orphanPIDFile names the file TestLabctlDiesWithTheRehearsalHelper writes
// its command's pid to; set only in the process that test kills.
const orphanPIDFile = "GPU_LAB_TEST_ORPHAN_PID_FILE"

// The process a SIGKILL ends: a rehearsal running a command (a sleep, as
// labctl up) that writes its pid and waits.
func TestLabctlDiesWithTheRehearsalHelper(t *testing.T) {
	file := os.Getenv(orphanPIDFile)
	if file == "" {
		t.Skip("runs only as the process TestLabctlDiesWithTheRehearsal kills")
	}
	_, _ = Processes{}.run(context.Background(), command{Step: stepUp, Args: []string{"sh", "-c", "echo $$ > " + file + "; exec sleep 120"}},
		io.Discard, func(stream, string) {})
	t.Error("the command returned although it sleeps")
}

// A rehearsal killed with SIGKILL takes the labctl it runs with it: the
// command does not outlive it (issue 43: an orphaned labctl up went on
// building a lab in the daemon the next rehearsal removed).
func TestLabctlDiesWithTheRehearsal(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLabctlDiesWithTheRehearsalHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), orphanPIDFile+"="+file)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the rehearsal's command never wrote its pid")
		}
		b, _ := os.ReadFile(file)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// Gone, or a zombie waiting for init; the signal is delivered at once,
	// its end awaited (it never comes unless signalled: the sleep is 120 s).
	var stat []byte
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if stat, err = os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("the command %d still runs 30 s after its rehearsal was killed: %s", pid, stat)
}
