package run

import (
	"context"
	"io"
	"os"
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
	u, err := Processes{}.run(ctx, command{Step: stepUpInterrupted, Args: []string{"sh", "-c", "sleep 120 & echo $!; wait"}, Stop: syscall.SIGKILL},
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
