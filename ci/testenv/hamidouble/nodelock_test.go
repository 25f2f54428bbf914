package hamidouble

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
)

func TestDecideLock(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	alive := func(ns, name string) bool { return name != "gone" }
	cases := []struct {
		name  string
		value string
		want  lockDecision
	}{
		{"no lock", "", lockFree},
		{"own lock", gpus.LockValue(now.Add(-time.Minute), "ns", "me"), lockHeld},
		{"other live pod within timeout", gpus.LockValue(now.Add(-time.Minute), "ns", "other"), lockContended},
		{"same name other namespace", gpus.LockValue(now.Add(-time.Minute), "other-ns", "me"), lockContended},
		{"expired", gpus.LockValue(now.Add(-5*time.Minute-time.Second), "ns", "other"), lockSteal},
		{"dangling owner", gpus.LockValue(now.Add(-time.Minute), "ns", "gone"), lockSteal},
		{"legacy within timeout", now.Add(-time.Minute).Format(time.RFC3339), lockContended},
		{"legacy expired", now.Add(-6 * time.Minute).Format(time.RFC3339), lockSteal},
		{"unparseable", "garbage", lockSteal},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := decideLock(tc.value, "ns", "me", now, 5*time.Minute, alive); got != tc.want {
				t.Errorf("DecideLock(%q) = %v, want %v", tc.value, got, tc.want)
			}
		})
	}
}

func slicePod(e *env, name, node string) *corev1.Pod {
	return e.gpuPod(name, node, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "1000", "nvidia.com/gpucores", "10"), nil)
}

// TestBindContention: while a live pod holds the lock, the next GPU bind
// fails with HAMi's message, records BindingFailed, leaves the pod unbound and
// the lock with its owner; once the owner's bind is finished it succeeds.
func TestBindContention(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	p1, p2 := slicePod(e, "p1", nodeB), slicePod(e, "p2", nodeB)
	if _, errText := e.schedule(p1, nodeB); errText != "" {
		t.Fatal(errText)
	}
	_, errText := e.schedule(p2, nodeB)
	const want = "node worker-b has been locked within 5m0s: node lock contention"
	if errText != want {
		t.Fatalf("second bind error %q, want %q", errText, want)
	}
	e.waitEvent("p2", eventBindingFailed, want)
	if got := e.pod("p2"); got.Spec.NodeName != "" || got.Annotations[gpus.AnnoBindPhase] != "" {
		t.Errorf("contended pod: nodeName %q bind-phase %q, want unbound", got.Spec.NodeName, got.Annotations[gpus.AnnoBindPhase])
	}
	// Phantom usage: p2 passed Filter, so it counts on its card (l4-0).
	if got := e.pod("p2").Annotations[gpus.AnnoDevicesAllocated]; !strings.HasPrefix(got, e.uuid(nodeB, 0)) {
		t.Errorf("p2 allocation %q, want the second L4 (spread)", got)
	}
	if v, _ := e.lock(nodeB); !strings.HasSuffix(v, ",ns,p1") {
		t.Errorf("lock %q, want it kept by p1", v)
	}
	if err := deviceplugin.FinishBind(e.ctx, e.c, e.pod("p1")); err != nil {
		t.Fatal(err)
	}
	if _, errText := e.schedule(p2, nodeB); errText != "" {
		t.Fatalf("bind after release: %s", errText)
	}
	if v, _ := e.lock(nodeB); !strings.HasSuffix(v, ",ns,p2") {
		t.Errorf("lock %q, want p2's", v)
	}
}

func TestBindStealsDanglingAndExpiredLocks(t *testing.T) {
	t.Parallel()
	// The double's clock stands still: a lock's age is what the test
	// stamped, however long a loaded machine takes between the stamp and
	// the bind.
	at := time.Date(2026, 12, 2, 1, 0, 0, 0, time.Local)
	for _, lock := range []string{
		gpus.LockValue(at, "ns", "deleted-pod"),
		gpus.LockValue(at.Add(-11*time.Second), "ns", "live"),
	} {
		e := newEnv(t, Config{NodeLockTimeout: 10 * time.Second})
		e.d.now = func() time.Time { return at }
		slicePod(e, "live", nodeA) // a live pod that is not the one binding
		n, _ := e.c.CoreV1().Nodes().Get(e.ctx, nodeA, metav1.GetOptions{})
		n.Annotations[gpus.AnnoNodeLock] = lock
		if _, err := e.c.CoreV1().Nodes().Update(e.ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		p := slicePod(e, "p", nodeA)
		if _, errText := e.schedule(p, nodeA); errText != "" {
			t.Fatalf("lock %q: bind error %q, want the lock stolen", lock, errText)
		}
		if v, _ := e.lock(nodeA); !strings.HasSuffix(v, ",ns,p") {
			t.Errorf("lock %q after steal, want p's", v)
		}
	}
	// A live lock within a custom timeout names that timeout.
	e := newEnv(t, Config{NodeLockTimeout: 10 * time.Second})
	e.d.now = func() time.Time { return at.Add(10 * time.Second) } // at the timeout, not past it
	slicePod(e, "live", nodeA)
	n, _ := e.c.CoreV1().Nodes().Get(e.ctx, nodeA, metav1.GetOptions{})
	n.Annotations[gpus.AnnoNodeLock] = gpus.LockValue(at, "ns", "live")
	_, _ = e.c.CoreV1().Nodes().Update(e.ctx, n, metav1.UpdateOptions{})
	if _, errText := e.schedule(slicePod(e, "p", nodeA), nodeA); errText != "node worker-a has been locked within 10s: node lock contention" {
		t.Errorf("bind error %q, want the 10s contention message", errText)
	}
}

// TestSetNodeLockRace: a lock that appears between Bind's first read and its
// write gives HAMi's second message.
func TestSetNodeLockRace(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	n, _ := e.c.CoreV1().Nodes().Get(e.ctx, nodeA, metav1.GetOptions{})
	n.Annotations[gpus.AnnoNodeLock] = gpus.LockValue(time.Now(), "ns", "other")
	_, _ = e.c.CoreV1().Nodes().Update(e.ctx, n, metav1.UpdateOptions{})
	err := e.d.setNodeLock(e.ctx, nodeA, "ns", "me")
	if err == nil || err.Error() != "node worker-a is locked: node lock contention" {
		t.Errorf("setNodeLock = %v, want %q", err, "node worker-a is locked: node lock contention")
	}
}

func TestNoNodeLockFault(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	e.d.setFaults(Faults{NoNodeLock: true})
	for _, name := range []string{"p1", "p2"} {
		if _, errText := e.schedule(slicePod(e, name, nodeB), nodeB); errText != "" {
			t.Fatalf("%s with NoNodeLock: %s", name, errText)
		}
	}
	if v, ok := e.lock(nodeB); ok {
		t.Errorf("lock %q set with NoNodeLock", v)
	}
}

func TestBindNonGPUPodTakesNoLock(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	p := e.gpuPod("cpu", nodeA, limits("cpu", "1"), nil)
	if br := e.bind(p, nodeA); br.Error != "" {
		t.Fatal(br.Error)
	}
	if v, ok := e.lock(nodeA); ok {
		t.Errorf("a pod without GPUs took the node lock %q", v)
	}
	if got := e.pod("cpu").Spec.NodeName; got != nodeA {
		t.Errorf("nodeName %q, want %s", got, nodeA)
	}
}
