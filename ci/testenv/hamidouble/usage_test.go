package hamidouble

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

func fillA100(e *env) {
	e.t.Helper()
	for _, name := range []string{"a1", "a2", "a3"} {
		p := e.gpuPod(name, nodeA, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "20000", "nvidia.com/gpucores", "30"), nil)
		if fr := e.filter(p, nodeA); fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
			e.t.Fatalf("%s did not fit: %v", name, fr.FailedNodes)
		}
	}
}

// sync waits until the double's pod informer has delivered every event so
// far: a marker pod created now is counted only after earlier events.
func (e *env) sync(marker string) {
	e.t.Helper()
	p := e.gpuPod(marker, nodeB, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "1", "nvidia.com/gpucores", "1"),
		map[string]string{gpus.AnnoVGPUNode: nodeB, gpus.AnnoDevicesAllocated: e.uuid(nodeB, 0) + ",NVIDIA,1,1:;"})
	waitFor(e.t, "the informer to see "+marker, func() bool {
		e.d.mu.Lock()
		defer e.d.mu.Unlock()
		_, ok := e.d.usage[p.UID]
		return ok
	})
}

// TestDeletedPodReleasesCapacity: the double forgets a deleted pod as soon as
// its informer sees the delete, so a fresh pod fits; with KeepDeletedUsage
// it never does.
func TestDeletedPodReleasesCapacity(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{false, true} {
		e := newEnv(t, Config{})
		e.d.setFaults(Faults{KeepDeletedUsage: keep})
		fillA100(e)
		if err := e.c.CoreV1().Pods("ns").Delete(e.ctx, "a1", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.sync("marker")
		fresh := e.gpuPod("fresh", nodeA, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "20000", "nvidia.com/gpucores", "30"), nil)
		fr := e.filter(fresh, nodeA)
		fits := fr.NodeNames != nil && len(*fr.NodeNames) == 1
		if fits == keep {
			t.Errorf("KeepDeletedUsage=%v: fresh pod fits=%v (%v), want %v", keep, fits, fr.FailedNodes, !keep)
		}
	}
}

// TestPhantomUsageAndRefilter: a pod that passed Filter counts before it is
// bound; filtering the same pod again drops its own earlier allocation first.
func TestPhantomUsageAndRefilter(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	fillA100(e) // none of them bound
	a3 := e.pod("a3")
	if fr := e.filter(a3, nodeA); fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
		t.Errorf("re-filtering a3 counted its own allocation: %v", fr.FailedNodes)
	}
	a4 := e.gpuPod("a4", nodeA, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "20000", "nvidia.com/gpucores", "30"), nil)
	if fr := e.filter(a4, nodeA); fr.FailedNodes[nodeA] != "1/1 CardInsufficientCore" {
		t.Errorf("a4 with three unbound pods on the card: %v, want 1/1 CardInsufficientCore (phantom usage)", fr.FailedNodes)
	}
}

func TestFinishedPodReleasesCapacity(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	fillA100(e)
	p := e.pod("a1")
	p.Status.Phase = corev1.PodSucceeded
	if _, err := e.c.CoreV1().Pods("ns").UpdateStatus(e.ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.sync("marker")
	a4 := e.gpuPod("a4", nodeA, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "20000", "nvidia.com/gpucores", "30"), nil)
	if fr := e.filter(a4, nodeA); fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
		t.Errorf("a succeeded pod still holds its card: %v", fr.FailedNodes)
	}
}
