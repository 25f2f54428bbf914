package deviceplugin

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

const testNode = "worker-a"

var lockTime = time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)

func testPod(name, node, phase, devices string, containers int) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Annotations: map[string]string{}},
		Spec:       corev1.PodSpec{NodeName: node},
	}
	for i := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: fmt.Sprintf("c%d", i)})
	}
	if phase != "" {
		p.Annotations[gpus.AnnoBindPhase] = phase
	}
	if devices != "" {
		p.Annotations[gpus.AnnoDevicesToAlloc] = devices
		p.Annotations[gpus.AnnoDevicesAllocated] = devices
	}
	return p
}

func testNodeWithLock(lock string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: testNode, Annotations: map[string]string{}}}
	if lock != "" {
		n.Annotations[gpus.AnnoNodeLock] = lock
	}
	return n
}

func TestFinishBind(t *testing.T) {
	const a100 = "GPU-a,NVIDIA,20000,30:"
	cases := []struct {
		name        string
		pod         *corev1.Pod
		lock        string
		wantErased  string
		wantLock    string // "" = released / absent
		wantLockSet bool
	}{
		{name: "owned lock released", pod: testPod("p1", testNode, gpus.BindPhaseAllocating, a100+";", 1),
			lock: gpus.LockValue(lockTime, "ns", "p1"), wantErased: ";"},
		{name: "lock of another pod kept", pod: testPod("p1", testNode, gpus.BindPhaseAllocating, a100+";", 1),
			lock: gpus.LockValue(lockTime, "ns", "p2"), wantErased: ";", wantLock: gpus.LockValue(lockTime, "ns", "p2"), wantLockSet: true},
		{name: "same name other namespace kept", pod: testPod("p1", testNode, gpus.BindPhaseAllocating, a100+";", 1),
			lock: gpus.LockValue(lockTime, "other", "p1"), wantErased: ";", wantLock: gpus.LockValue(lockTime, "other", "p1"), wantLockSet: true},
		{name: "legacy lock released", pod: testPod("p1", testNode, gpus.BindPhaseAllocating, a100+";", 1),
			lock: lockTime.Format(time.RFC3339), wantErased: ";"},
		{name: "no lock", pod: testPod("p1", testNode, gpus.BindPhaseAllocating, a100+";", 1), wantErased: ";"},
		{name: "multi-container erased form", pod: testPod("p1", testNode, gpus.BindPhaseAllocating, a100+";;"+a100+";", 3),
			lock: gpus.LockValue(lockTime, "ns", "p1"), wantErased: ";;;"},
		{name: "missing device string counts containers", pod: testPod("p1", testNode, gpus.BindPhaseAllocating, "", 2),
			wantErased: ";;"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			// The simple clientset: NewClientset's tracker builds a REST mapper of
			// the whole scheme on every call; nothing here applies server-side.
			c := fake.NewSimpleClientset(tc.pod, testNodeWithLock(tc.lock))
			if err := FinishBind(ctx, c, tc.pod); err != nil {
				t.Fatal(err)
			}
			pod, _ := c.CoreV1().Pods("ns").Get(ctx, tc.pod.Name, metav1.GetOptions{})
			if got := pod.Annotations[gpus.AnnoBindPhase]; got != gpus.BindPhaseSuccess {
				t.Errorf("bind-phase = %q, want %q", got, gpus.BindPhaseSuccess)
			}
			if got := pod.Annotations[gpus.AnnoDevicesToAlloc]; got != tc.wantErased {
				t.Errorf("devices-to-allocate = %q, want %q", got, tc.wantErased)
			}
			if got, want := pod.Annotations[gpus.AnnoDevicesAllocated], tc.pod.Annotations[gpus.AnnoDevicesAllocated]; got != want {
				t.Errorf("devices-allocated changed to %q, want it kept as %q", got, want)
			}
			node, _ := c.CoreV1().Nodes().Get(ctx, testNode, metav1.GetOptions{})
			got, set := node.Annotations[gpus.AnnoNodeLock]
			if set != tc.wantLockSet || got != tc.wantLock {
				t.Errorf("node lock = %q (set %v), want %q (set %v)", got, set, tc.wantLock, tc.wantLockSet)
			}
		})
	}
}

func TestFinishBindUnboundPod(t *testing.T) {
	pod := testPod("p1", "", gpus.BindPhaseAllocating, "", 1)
	c := fake.NewSimpleClientset(pod)
	if err := FinishBind(context.Background(), c, pod); err == nil {
		t.Fatal("FinishBind of a pod without spec.nodeName succeeded, want an error")
	}
}

func TestReleaseNodeLockRetriesOnConflict(t *testing.T) {
	ctx := context.Background()
	c := fake.NewSimpleClientset(testNodeWithLock(gpus.LockValue(lockTime, "ns", "p1")))
	conflicts := 2
	c.PrependReactor("patch", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			conflicts--
			return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, testNode, fmt.Errorf("resourceVersion changed"))
		}
		return false, nil, nil
	})
	if err := ReleaseNodeLock(ctx, c, testNode, "ns", "p1"); err != nil {
		t.Fatal(err)
	}
	node, _ := c.CoreV1().Nodes().Get(ctx, testNode, metav1.GetOptions{})
	if v, ok := node.Annotations[gpus.AnnoNodeLock]; ok {
		t.Errorf("lock %q still set after two conflicts, want released on retry", v)
	}
	var rvPatches int
	for _, a := range c.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok && p.GetResource().Resource == "nodes" {
			if !strings.Contains(string(p.GetPatch()), `"resourceVersion":`) {
				t.Errorf("node patch %s carries no resourceVersion", p.GetPatch())
			}
			rvPatches++
		}
	}
	if rvPatches != 3 {
		t.Errorf("node patches = %d, want 3 (two conflicts and the success)", rvPatches)
	}
}

// A lock whose node keeps changing under the patch is given up after
// lockRetry's attempts, with the last conflict and the lock named.
func TestReleaseNodeLockGivesUpAfterItsAttempts(t *testing.T) {
	lock := gpus.LockValue(lockTime, "ns", "p1")
	c := fake.NewSimpleClientset(testNodeWithLock(lock))
	patches := 0
	c.PrependReactor("patch", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		patches++
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, testNode, fmt.Errorf("resourceVersion changed"))
	})
	err := ReleaseNodeLock(context.Background(), c, testNode, "ns", "p1")
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), fmt.Sprintf("release node lock %q on node %s", lock, testNode)) {
		t.Fatalf("err = %v, want the last conflict naming the lock and the node", err)
	}
	if patches != lockRetry.Steps {
		t.Errorf("node patches = %d, want %d (every attempt)", patches, lockRetry.Steps)
	}
}

// waitFor polls until cond holds or the deadline passes; the deadline is a
// failure bound, not a timing assertion.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func startFinalizer(t *testing.T, c kubernetes.Interface) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Finalizer{Client: c}).Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

func TestFinalizerRun(t *testing.T) {
	ctx := context.Background()
	c := fake.NewSimpleClientset(testNodeWithLock(gpus.LockValue(lockTime, "ns", "bound")))
	startFinalizer(t, c)

	unbound := testPod("unbound", "", gpus.BindPhaseAllocating, "GPU-a,NVIDIA,1,1:;", 1)
	done := testPod("done", testNode, gpus.BindPhaseSuccess, ";", 1)
	plain := testPod("plain", testNode, "", "", 1)
	bound := testPod("bound", testNode, gpus.BindPhaseAllocating, "GPU-a,NVIDIA,1,1:;", 1)
	for _, p := range []*corev1.Pod{unbound, done, plain, bound} {
		if _, err := c.CoreV1().Pods("ns").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the bound pod to be finished", func() bool {
		p, _ := c.CoreV1().Pods("ns").Get(ctx, "bound", metav1.GetOptions{})
		return p.Annotations[gpus.AnnoBindPhase] == gpus.BindPhaseSuccess
	})
	waitFor(t, "the node lock to be released", func() bool {
		n, _ := c.CoreV1().Nodes().Get(ctx, testNode, metav1.GetOptions{})
		_, ok := n.Annotations[gpus.AnnoNodeLock]
		return !ok
	})
	// The others were left alone: no patch ever named them.
	for _, a := range c.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok && p.GetResource().Resource == "pods" && p.GetName() != "bound" {
			t.Errorf("finalizer patched pod %s (%s), want only allocating bound pods touched", p.GetName(), p.GetPatch())
		}
	}
	p, _ := c.CoreV1().Pods("ns").Get(ctx, "unbound", metav1.GetOptions{})
	if p.Annotations[gpus.AnnoBindPhase] != gpus.BindPhaseAllocating {
		t.Errorf("unbound pod's bind-phase = %q, want it left at allocating", p.Annotations[gpus.AnnoBindPhase])
	}
}

// TestFinalizerBurst binds 10 pods back to back on one node, each taking the
// lock only once the previous one released it, as HAMi's Bind would.
func TestFinalizerBurst(t *testing.T) {
	ctx := context.Background()
	c := fake.NewSimpleClientset(testNodeWithLock(""))
	startFinalizer(t, c)
	for i := range 10 {
		name := fmt.Sprintf("burst-%d", i)
		waitFor(t, "the node lock to be free before "+name, func() bool {
			n, _ := c.CoreV1().Nodes().Get(ctx, testNode, metav1.GetOptions{})
			_, ok := n.Annotations[gpus.AnnoNodeLock]
			return !ok
		})
		n, _ := c.CoreV1().Nodes().Get(ctx, testNode, metav1.GetOptions{})
		n.Annotations = map[string]string{gpus.AnnoNodeLock: gpus.LockValue(time.Now(), "ns", name)}
		if _, err := c.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CoreV1().Pods("ns").Create(ctx, testPod(name, testNode, gpus.BindPhaseAllocating, "GPU-a,NVIDIA,2000,3:;", 1),
			metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "all 10 pods to be finished and the lock released", func() bool {
		for i := range 10 {
			p, _ := c.CoreV1().Pods("ns").Get(ctx, fmt.Sprintf("burst-%d", i), metav1.GetOptions{})
			if p.Annotations[gpus.AnnoBindPhase] != gpus.BindPhaseSuccess || p.Annotations[gpus.AnnoDevicesToAlloc] != ";" {
				return false
			}
		}
		n, _ := c.CoreV1().Nodes().Get(ctx, testNode, metav1.GetOptions{})
		_, ok := n.Annotations[gpus.AnnoNodeLock]
		return !ok
	})
}

// BenchmarkFinalizerBind measures one bind's finishing latency through the
// informer and queue: pod created in bind-phase allocating → lock released.
func BenchmarkFinalizerBind(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := fake.NewSimpleClientset(testNodeWithLock(""))
	go func() { _ = (&Finalizer{Client: c}).Run(ctx) }()
	for i := 0; b.Loop(); i++ {
		name := fmt.Sprintf("bench-%d", i)
		n, _ := c.CoreV1().Nodes().Get(ctx, testNode, metav1.GetOptions{})
		n.Annotations = map[string]string{gpus.AnnoNodeLock: gpus.LockValue(time.Now(), "ns", name)}
		if _, err := c.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
		if _, err := c.CoreV1().Pods("ns").Create(ctx, testPod(name, testNode, gpus.BindPhaseAllocating, "GPU-a,NVIDIA,1,1:;", 1),
			metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		for {
			n, _ := c.CoreV1().Nodes().Get(ctx, testNode, metav1.GetOptions{})
			if _, ok := n.Annotations[gpus.AnnoNodeLock]; !ok {
				break
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
}
