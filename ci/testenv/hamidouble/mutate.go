package hamidouble

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// mutateOptions are the webhook settings of HAMi's chart.
type mutateOptions struct {
	SchedulerName string // hami-scheduler
	DefaultGPUNum int    // 1
	// ForceOverwriteDefaultScheduler lets the webhook replace
	// default-scheduler (HAMi's default: true).
	ForceOverwriteDefaultScheduler bool
}

// mutation is the webhook's decision for one pod.
type mutation struct {
	// Denied is the refusal message; "" allows the pod.
	Denied string
	// Patch is the JSON patch to apply (nil when nothing changes).
	Patch []patchOp
}

// patchOp is one RFC 6902 operation.
type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// mutate applies HAMi's webhook rules (v2.10.0 pkg/scheduler/webhook.go:53,
// pkg/device/nvidia/device.go:347) to a pod, in HAMi's
// order: deny a pod without containers; leave pods for other schedulers
// alone; per container add nvidia.com/gpu when only gpumem/gpucores/
// percentage limits are given and default an exclusive card (gpucores 100)
// when cores and memory are absent; then deny privileged GPU pods, set the
// scheduler name, and deny GPU pods that already name a node.
func mutate(pod *corev1.Pod, o mutateOptions) mutation {
	if len(pod.Spec.Containers) == 0 {
		return mutation{Denied: "pod has no containers"}
	}
	if pod.Labels[gpus.LabelWebhookIgnore] == gpus.WebhookIgnoreValue {
		return mutation{}
	}
	if s := pod.Spec.SchedulerName; s != "" && s != o.SchedulerName &&
		!(s == corev1.DefaultSchedulerName && o.ForceOverwriteDefaultScheduler) {
		return mutation{}
	}
	var ops []patchOp
	hasGPU := false
	privileged := ""
	mutate := func(kind string, ctrs []corev1.Container) error {
		for i, c := range ctrs {
			limits, changed, gpu, err := mutateLimits(c.Resources.Limits, o.DefaultGPUNum)
			if err != nil {
				return fmt.Errorf("container %s: %w", c.Name, err)
			}
			hasGPU = hasGPU || gpu
			// Any privileged container denies a GPU pod, not only GPU ones.
			if c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged && privileged == "" {
				privileged = c.Name
			}
			if changed {
				res := c.Resources.DeepCopy()
				res.Limits = limits
				ops = append(ops, patchOp{Op: "add", Path: fmt.Sprintf("/spec/%s/%d/resources", kind, i), Value: res})
			}
		}
		return nil
	}
	if err := mutate("initContainers", pod.Spec.InitContainers); err != nil {
		return mutation{Denied: err.Error()}
	}
	if err := mutate("containers", pod.Spec.Containers); err != nil {
		return mutation{Denied: err.Error()}
	}
	if !hasGPU {
		return mutation{Patch: ops}
	}
	if privileged != "" {
		return mutation{Denied: fmt.Sprintf("container %s is privileged", privileged)}
	}
	if pod.Spec.NodeName != "" {
		return mutation{Denied: "pod has node assigned"}
	}
	ops = append(ops, patchOp{Op: "add", Path: "/spec/schedulerName", Value: o.SchedulerName})
	return mutation{Patch: ops}
}

// mutateLimits returns the container's limits after HAMi's NVIDIA rules,
// whether they changed, and whether the container is a GPU container.
func mutateLimits(in corev1.ResourceList, defaultGPUNum int) (corev1.ResourceList, bool, bool, error) {
	out := in.DeepCopy()
	if out == nil {
		out = corev1.ResourceList{}
	}
	_, hasGPU := out[gpus.ResourceGPU]
	_, hasMem := out[gpus.ResourceGPUMem]
	_, hasCores := out[gpus.ResourceGPUCores]
	pct, hasPct := out[gpus.ResourceGPUMemPercent]
	if hasPct {
		if v, ok := pct.AsInt64(); !ok || v < 0 || v > 100 {
			return nil, false, false, fmt.Errorf("%s must be an integer between 0 and 100, got %s", gpus.ResourceGPUMemPercent, pct.String())
		}
	}
	changed := false
	if !hasGPU && (hasMem || hasCores || hasPct) {
		out[gpus.ResourceGPU] = *resource.NewQuantity(int64(defaultGPUNum), resource.DecimalSI)
		hasGPU, changed = true, true
	}
	if !hasGPU {
		return in, false, false, nil
	}
	if !hasCores && (!hasMem || (hasPct && pct.Value() == 100)) {
		out[gpus.ResourceGPUCores] = *resource.NewQuantity(100, resource.DecimalSI)
		changed = true
	}
	return out, changed, true, nil
}

// marshalPatch renders the JSON patch of a mutation.
func marshalPatch(ops []patchOp) ([]byte, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	return json.Marshal(ops)
}
