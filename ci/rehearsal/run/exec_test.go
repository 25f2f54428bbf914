package run

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
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
	// Gone, or a zombie waiting for init: either way no longer running.
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat")
	if err == nil && !strings.Contains(string(stat), ") Z ") {
		_ = syscall.Kill(child, syscall.SIGKILL)
		t.Errorf("the shell's child %d still runs after the group was killed: %s", child, stat)
	}
}
