package deviceplugin

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// RegisterNode writes a worker's simulated GPUs onto its Node: the JSON
// register annotation HAMi's scheduler reads (v2.10.0
// pkg/device/nvidia/device.go:42,248), the label gpu=on
// HAMi's chart selects device-plugin DaemonSets with, and the four extended
// resources of gpus.Advertised in status.capacity and status.allocatable —
// nvidia.com/gpu, which HAMi v2.10's scheduler uses as its registration gate
// (v2.10.0 pkg/device/nvidia/device.go:234), and nvidia.com/gpumem, nvidia.com/gpucores and
// nvidia.com/gpumem-percentage at the values HAMi's mock device plugin v1.0.1
// would advertise, which the lab no longer runs (gpus.Advertised says why).
//
// A resource written on the Node's status, with no device plugin behind it,
// is what the kubelet admits pods against and never allocates:
//   - admission fits the pod against the Node it reads from the API server
//     (Kubernetes v1.36.4 pkg/kubelet/lifecycle/predicate.go:124 and
//     :162-163, NodeInfo.SetNode takes status.allocatable,
//     pkg/scheduler/framework/types.go:529); it drops only the requests of
//     extended resources the Node does not list (predicate.go:185, :374-377),
//     then fits the rest with no resource ignored (predicate.go:187, :436;
//     pkg/scheduler/eventhandlers.go:737), so a pod asking more
//     nvidia.com/gpumem than the worker's cards have left is rejected
//     OutOfnvidia.com/gpumem (predicate.go:81, :231-232), while a Node
//     without it would admit anything;
//   - the device manager allocates only resources a plugin registered or it
//     allocated before (pkg/kubelet/cm/devicemanager/manager.go:858-860 and
//     :1086-1097, also :965 for container options), so these are skipped;
//   - the kubelet's status updates keep capacity it did not set and copy
//     each capacity to allocatable (pkg/kubelet/nodestatus/setters.go:297-316).
//
// It is idempotent: it only writes what differs.
func RegisterNode(ctx context.Context, c kubernetes.Interface, l *lab.Lab, tenant string, w lab.Worker, nodeName string) error {
	if len(w.Cards()) == 0 {
		return fmt.Errorf("register GPUs on node %s: worker %q of tenant %q has no GPUs in the lab spec", nodeName, w.Name, tenant)
	}
	node, err := c.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("register GPUs on node %s: %w", nodeName, err)
	}
	register := gpus.EncodeRegister(gpus.Devices(l, tenant, w))
	if node.Annotations[gpus.AnnoRegister] != register || node.Labels[gpus.LabelGPUNode] != gpus.LabelGPUOn {
		patch := map[string]any{"metadata": map[string]any{
			"annotations": map[string]string{gpus.AnnoRegister: register},
			"labels":      map[string]string{gpus.LabelGPUNode: gpus.LabelGPUOn},
		}}
		if err := mergePatchNode(ctx, c, nodeName, patch); err != nil {
			return fmt.Errorf("register GPUs on node %s: annotate: %w", nodeName, err)
		}
	}
	want := gpus.Advertised(l, tenant, w)
	if len(Mismatches(node.Status.Capacity, want)) > 0 || len(Mismatches(node.Status.Allocatable, want)) > 0 {
		values := map[string]string{}
		for _, r := range want {
			values[r.Name] = resource.NewQuantity(r.Value, resource.DecimalSI).String()
		}
		patch := map[string]any{"status": map[string]any{"capacity": values, "allocatable": values}}
		if err := mergePatchNode(ctx, c, nodeName, patch, "status"); err != nil {
			return fmt.Errorf("register GPUs on node %s: set the GPU resources' capacity and allocatable: %w", nodeName, err)
		}
	}
	return nil
}

// Resources is gpus.Advertised as a resource list (capacity or allocatable).
func Resources(want []gpus.Resource) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, r := range want {
		out[corev1.ResourceName(r.Name)] = *resource.NewQuantity(r.Value, resource.DecimalSI)
	}
	return out
}

func mergePatchNode(ctx context.Context, c kubernetes.Interface, name string, patch any, subresources ...string) error {
	b, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	_, err = c.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, b, metav1.PatchOptions{}, subresources...)
	return err
}
