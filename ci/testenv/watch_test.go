package testenv

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a log destination the test reads while the environment
// writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// checkNamesSuspendedAndDeadComponents holds that a ready environment says
// itself, in one line naming it, that a component was suspended, runs
// again, or died; logs is everything the environment logged. It kills
// tenant solo's kube-scheduler.
func checkNamesSuspendedAndDeadComponents(t *testing.T, e *Env, logs *syncBuffer) {
	t.Helper()
	pid := 0
	for _, p := range e.Processes() {
		if p.Name == "solo/kube-scheduler" {
			pid = p.PID
		}
	}
	if pid == 0 {
		t.Fatalf("no solo/kube-scheduler among %v", e.Processes())
	}
	// waitLines waits until the environment logged n lines with all of
	// want (a synchronisation point; the bound only ends a broken test).
	waitLines := func(n int, want ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for {
			found := 0
			for _, line := range strings.Split(logs.String(), "\n") {
				if containsAll(line, want) {
					found++
				}
			}
			if found >= n {
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%d log lines with %q, want %d; log:\n%s", found, want, n, logs.String())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	waitLine := func(want ...string) { t.Helper(); waitLines(2, want...) }

	// Every component, etcd included, is named when it is suspended and
	// when it runs again, once each. All of them at once: the watcher
	// looks every watchInterval, so one after the other cost two looks a
	// component (about 4.5 s for the solo environment's nine processes).
	procs := e.Processes()
	signalAll := func(sig syscall.Signal) {
		t.Helper()
		for _, p := range procs {
			if err := syscall.Kill(p.PID, sig); err != nil {
				t.Fatal(err)
			}
		}
	}
	signalAll(syscall.SIGSTOP)
	for _, p := range procs {
		waitLines(1, p.Name+" is suspended")
	}
	signalAll(syscall.SIGCONT)
	for _, p := range procs {
		waitLines(1, p.Name+" runs again")
	}
	if n, want := strings.Count(logs.String(), " is suspended"), len(procs); n != want {
		t.Errorf("%d lines say a component is suspended, want one for each of the %d processes:\n%s", n, want, logs.String())
	}

	// The scheduler once more (second lines), then killed.
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitLine("solo/kube-scheduler is suspended", "level=ERROR")
	if err := e.Health(); err == nil || !strings.Contains(err.Error(), "solo/kube-scheduler") || !strings.Contains(err.Error(), "suspended") {
		t.Errorf("Health while suspended = %v, want it to name solo/kube-scheduler as suspended", err)
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitLine("solo/kube-scheduler runs again")
	if err := e.Health(); err != nil {
		t.Errorf("Health after SIGCONT = %v, want nil", err)
	}

	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitLines(1, "solo/kube-scheduler exited on its own: signal: killed", "kube-scheduler.log")
	for name, err := range map[string]error{"Err": e.Err(), "Health": e.Health()} {
		if err == nil || !strings.Contains(err.Error(), "solo/kube-scheduler") {
			t.Errorf("%s after SIGKILL = %v, want it to name solo/kube-scheduler", name, err)
		}
	}
	if n := strings.Count(logs.String(), "exited on its own"); n != 1 {
		t.Errorf("%d lines say a component exited, want exactly 1:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), "etcd exited") || strings.Contains(logs.String(), "kube-apiserver exited") {
		t.Errorf("a component that runs was reported:\n%s", logs.String())
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
