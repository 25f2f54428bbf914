package stages

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// TestGPUsStageGatesOnAllocatable: a worker whose Node does not carry its GPU
// resources at the inventory's values (here a kubelet zeroed
// nvidia.com/gpumem and nothing re-asserted it) fails stage gpus, naming the
// tenant, worker, Node, resource, want and got, before HAMi's metrics are
// even read, and Check says the stage is not done. Once the value is back,
// the stage passes and Check agrees.
func TestGPUsStageGatesOnAllocatable(t *testing.T) {
	e, _, _, _ := gpusTenants(t)
	ctx := context.Background()
	node := e.Lab.NodeName("tenant-b", "worker")
	kube := e.clients["tenant-b"].Kube
	n, err := kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Allocatable[gpus.ResourceGPUMem] = resource.MustParse("0")
	if _, err := kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// A failure bound, not a timing assertion: nothing in the fake tenant
	// restores the value, so the gate's wait ends in its error.
	e.Timeouts.Cards = 300 * time.Millisecond
	_, err = gpusStage{}.Run(ctx, e)
	if err == nil {
		t.Fatal("stage gpus passed with nvidia.com/gpumem zeroed on tenant-b's worker")
	}
	for _, part := range []string{"stage gpus", "tenant tenant-b worker worker", "Node " + node, "nvidia.com/gpumem want 49152, got 0"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q lacks %q", err, part)
		}
	}
	for _, right := range []string{"nvidia.com/gpu want", "nvidia.com/gpucores want", "tenant tenant-a"} {
		if strings.Contains(err.Error(), right) {
			t.Errorf("error %q names %q, which is right", err, right)
		}
	}
	if done, _, _ := (gpusStage{}).Check(ctx, e); done {
		t.Error("Check with nvidia.com/gpumem zeroed: done, want not done")
	}

	// The finalizer's next pass puts it back (deviceplugin.RegisterNode).
	n, _ = kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	n.Status.Allocatable[gpus.ResourceGPUMem] = resource.MustParse("49152")
	if _, err := kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Timeouts.Cards = 20 * time.Second // a failure bound again
	if _, err := (gpusStage{}).Run(ctx, e); err != nil {
		t.Fatalf("stage gpus with every resource in place: %v", err)
	}
	if done, why, err := (gpusStage{}).Check(ctx, e); err != nil || !done {
		t.Fatalf("Check after Run = %v (%s), %v", done, why, err)
	}
}
