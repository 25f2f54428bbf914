package testenv

import (
	"testing"
)

// TestSuspendSeesItsStopThoughAWatcherResumes: the fault test's etcd case
// resumes etcd as soon as the suite's health watch has seen it stopped
// (every 200 ms it reads /proc as Suspend does, stops the case, and the
// case's hook calls Resume). Suspend still returns nil, because Resume
// waits for it: it once failed "/proc does not show it stopped 10s later"
// (fresh-clone CI at c72b5aa) when the watch read the stop and SIGCONT
// came before Suspend's own next look. Here the watcher reads /proc
// without pause, so it wins that race whenever it can.
func TestSuspendSeesItsStopThoughAWatcherResumes(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	e := bareEnv(t, &logs)
	p := sleeper(t, e, "etcd")
	for round := range 20 {
		resumed := make(chan error, 1)
		go func() {
			for !suspended(p.pid()) {
			}
			resumed <- e.Resume("", "etcd")
		}()
		if err := e.Suspend("", "etcd"); err != nil {
			t.Fatalf("round %d: Suspend: %v", round, err)
		}
		if err := <-resumed; err != nil {
			t.Fatalf("round %d: Resume: %v", round, err)
		}
	}
}
