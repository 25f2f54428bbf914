package testenv

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestThreadStatesNamesWhatHoldsAStopBack: a sleeping process's thread is
// listed as not stopped, with its state and wait; once SIGSTOP has taken
// it, every thread is T and none is listed.
func TestThreadStatesNamesWhatHoldsAStopBack(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	for start := time.Now(); !strings.Contains(threadStates(pid), " S"); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("sleep(1) never seen sleeping: %s", threadStates(pid))
		}
	}
	if got := threadStates(pid); !strings.HasPrefix(got, "threads: 1 S; not stopped (tid state wchan): ") {
		t.Errorf("running: %q", got)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); !suspended(pid); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("not stopped: %s", threadStates(pid))
		}
	}
	if got := threadStates(pid); got != "threads: 1 T" {
		t.Errorf("stopped: %q, want \"threads: 1 T\"", got)
	}
}

// A process is stopped when every thread is, whatever its leader shows.
func TestAllStopped(t *testing.T) {
	for _, c := range []struct {
		states []string
		want   bool
	}{
		{[]string{"T"}, true},
		{[]string{"T", "T", "t"}, true},
		{[]string{"T", "Z"}, true},
		{[]string{"T", "S"}, false}, // the leader stopped, another thread runs
		{[]string{"S", "T"}, false}, // the other way round
		{[]string{"T", "D"}, false}, // stops only when its wait ends
		{[]string{"T", "R"}, false},
		{[]string{"Z"}, false},
		{nil, false},
	} {
		if got := allStopped(c.states); got != c.want {
			t.Errorf("allStopped(%q) = %v, want %v", c.states, got, c.want)
		}
	}
}
