package deviceplugin

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// Mismatch is one GPU resource a Node's resource list does not carry at the
// value the lab's inventory gives it.
type Mismatch struct {
	Resource string
	Want     int64
	// Got is the quantity the Node carries, or "absent".
	Got string
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%s want %d, got %s", m.Resource, m.Want, m.Got)
}

// Mismatches compares a resource list (a Node's status.allocatable or
// status.capacity) with the resources a worker advertises (gpus.Advertised),
// in the order of want. Resources the list has beyond want are not compared.
func Mismatches(list corev1.ResourceList, want []gpus.Resource) []Mismatch {
	var out []Mismatch
	for _, r := range want {
		q, ok := list[corev1.ResourceName(r.Name)]
		switch {
		case !ok:
			out = append(out, Mismatch{Resource: r.Name, Want: r.Value, Got: "absent"})
		case q.CmpInt64(r.Value) != 0:
			out = append(out, Mismatch{Resource: r.Name, Want: r.Value, Got: q.String()})
		}
	}
	return out
}

// AllocatableGaps is the readiness gate of a worker's GPU resources: nil when
// the Node's status.allocatable carries every resource of gpus.Advertised at
// its value, else one line naming the worker, its Node and, per resource,
// what the lab wants and what the Node has. The local environment's
// readiness check uses it (workersReady); the real lab's stage gpus compares
// the kubelet's count of HAMi's devices with Mismatches.
func AllocatableGaps(tenant, worker string, n *corev1.Node, want []gpus.Resource) error {
	ms := Mismatches(n.Status.Allocatable, want)
	if len(ms) == 0 {
		return nil
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.String()
	}
	return fmt.Errorf("tenant %s worker %s (Node %s) allocatable: %s (the GPU registrar writes them)",
		tenant, worker, n.Name, strings.Join(parts, "; "))
}
