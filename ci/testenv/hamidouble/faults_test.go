package hamidouble

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// TestFaultsThroughRoutes: SetFaults changes the outcome of the next /filter
// call on a running double, and clearing it restores HAMi's behaviour.
func TestFaultsThroughRoutes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		fault      Faults
		node       string
		limits     corev1.ResourceList
		annotation map[string]string
		reason     string // the faithful double's FailedNodes value
	}{
		{"IgnoreMemory", Faults{IgnoreMemory: true}, nodeA, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "90000"),
			nil, "1/1 CardInsufficientMemory"},
		{"IgnoreTypeFilter", Faults{IgnoreTypeFilter: true}, nodeB, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "1000"),
			map[string]string{gpus.AnnoUseGPUType: "A100"}, "2/2 CardTypeMismatch"},
		{"IgnoreCount", Faults{IgnoreCount: true}, nodeB, limits("nvidia.com/gpu", "3"), nil, "NodeInsufficientDevice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, Config{})
			p := e.gpuPod("p", tc.node, tc.limits, tc.annotation)
			if fr := e.filter(p, tc.node); fr.FailedNodes[tc.node] != tc.reason {
				t.Fatalf("faithful: %v, want %s", fr.FailedNodes, tc.reason)
			}
			e.d.setFaults(tc.fault)
			if fr := e.filter(p, tc.node); fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
				t.Fatalf("with %s: %v, want the pod to fit", tc.name, fr.FailedNodes)
			}
			e.d.setFaults(Faults{})
			if fr := e.filter(p, tc.node); fr.FailedNodes[tc.node] != tc.reason {
				t.Fatalf("after clearing the fault: %v, want %s", fr.FailedNodes, tc.reason)
			}
		})
	}
}
