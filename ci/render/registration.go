package render

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// Registration is what makes a worker's simulated GPUs visible to HAMi
// (HAMi v2.10.0 pkg/device/nvidia/device.go:42,234; the mock device plugin
// v1.0.1 README's recipe) and to the kubelet: the JSON register annotation, the
// gpu=on label and the four resources of gpus.Advertised (nvidia.com/gpu,
// gpumem, gpucores, gpumem-percentage) in status.capacity and
// status.allocatable, exactly as deviceplugin.RegisterNode writes them
// (TestRegistrationIsWhatTheRegistrarApplies in ci/gpus/deviceplugin holds
// the two together). HAMi's scheduler reads allocatable nvidia.com/gpu, the
// count HAMi v2.8+ uses as its registration gate; the kubelet admits pods
// against all four.
type Registration struct {
	Tenant   string
	Worker   string
	NodeName string
	Devices  []gpus.DeviceInfo
	// Labels and Annotations go on the Node's metadata (merge patch).
	Labels      map[string]string
	Annotations map[string]string
	// Capacity and Allocatable go on the Node's status (status subresource).
	Capacity    corev1.ResourceList
	Allocatable corev1.ResourceList
}

// WorkerRegistration returns the registration of one worker.
func WorkerRegistration(l *lab.Lab, tenant, worker string) (*Registration, error) {
	_, t := tenantIndex(l, tenant)
	if t == nil {
		return nil, fmt.Errorf("registration of %s/%s: no such tenant in lab %q", tenant, worker, l.Name)
	}
	for _, w := range t.Workers {
		if w.Name != worker {
			continue
		}
		devs := gpus.Devices(l, tenant, w)
		resources := corev1.ResourceList{}
		for _, r := range gpus.Advertised(l, tenant, w) {
			resources[corev1.ResourceName(r.Name)] = *resource.NewQuantity(r.Value, resource.DecimalSI)
		}
		return &Registration{
			Tenant:      tenant,
			Worker:      worker,
			NodeName:    l.NodeName(tenant, worker),
			Devices:     devs,
			Labels:      map[string]string{gpus.LabelGPUNode: gpus.LabelGPUOn},
			Annotations: map[string]string{gpus.AnnoRegister: gpus.EncodeRegister(devs)},
			Capacity:    resources,
			Allocatable: resources.DeepCopy(),
		}, nil
	}
	return nil, fmt.Errorf("registration of %s/%s: tenant %q has no worker %q", tenant, worker, tenant, worker)
}

// Apply is the registration as a server-side apply configuration of the
// Node: metadata labels and annotations plus status.capacity and
// status.allocatable (apply the status with the status subresource). Its
// YAML is the rendered manifest `labctl plan -o` writes.
func (r *Registration) Apply() *applycorev1.NodeApplyConfiguration {
	return applycorev1.Node(r.NodeName).
		WithLabels(r.Labels).
		WithAnnotations(r.Annotations).
		WithStatus(applycorev1.NodeStatus().WithCapacity(r.Capacity).WithAllocatable(r.Allocatable))
}

// metadataPatch is a JSON merge patch for the Node (labels and annotations).
func (r *Registration) metadataPatch() ([]byte, error) {
	return json.Marshal(map[string]any{"metadata": map[string]any{
		"labels": r.Labels, "annotations": r.Annotations,
	}})
}

// statusPatch is a JSON merge patch for the Node's status subresource. The
// kubelet zeroes every extended resource when its device manager starts
// afresh (Kubernetes v1.36.4 pkg/kubelet/kubelet_node_status.go:192-206,
// reconcileExtendedResource), so the registrar re-asserts it.
func (r *Registration) statusPatch() ([]byte, error) {
	return json.Marshal(map[string]any{"status": map[string]any{"capacity": r.Capacity, "allocatable": r.Allocatable}})
}
