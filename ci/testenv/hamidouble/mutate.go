package hamidouble

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// MutateOptions are the webhook settings of HAMi's chart.
type MutateOptions struct {
	SchedulerName string // hami-scheduler
	DefaultGPUNum int    // 1
	// ForceOverwriteDefaultScheduler lets the webhook replace
	// default-scheduler (HAMi's default: true).
	ForceOverwriteDefaultScheduler bool
}

// Mutation is the webhook's decision for one pod.
type Mutation struct {
	// Denied is the refusal message; "" allows the pod.
	Denied string
	// Patch is the JSON patch to apply (nil when nothing changes).
	Patch []PatchOp
}

// PatchOp is one RFC 6902 operation.
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// Mutate applies HAMi's webhook rules (v2.10.0 pkg/scheduler/webhook.go:53,
// pkg/device/nvidia/device.go:347) to a pod, in HAMi's
// order: deny a pod without containers; leave pods for other schedulers
// alone; per container add nvidia.com/gpu when only gpumem/gpucores/
// percentage limits are given and default an exclusive card (gpucores 100)
// when cores and memory are absent; then deny privileged GPU pods, set the
// scheduler name, and deny GPU pods that already name a node.
func Mutate(pod *corev1.Pod, o MutateOptions) Mutation {
	if len(pod.Spec.Containers) == 0 {
		return Mutation{Denied: "pod has no containers"}
	}
	if pod.Labels[gpus.LabelWebhookIgnore] == gpus.WebhookIgnoreValue {
		return Mutation{}
	}
	if s := pod.Spec.SchedulerName; s != "" && s != o.SchedulerName &&
		!(s == corev1.DefaultSchedulerName && o.ForceOverwriteDefaultScheduler) {
		return Mutation{}
	}
	var ops []PatchOp
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
				ops = append(ops, PatchOp{Op: "add", Path: fmt.Sprintf("/spec/%s/%d/resources", kind, i), Value: res})
			}
		}
		return nil
	}
	if err := mutate("initContainers", pod.Spec.InitContainers); err != nil {
		return Mutation{Denied: err.Error()}
	}
	if err := mutate("containers", pod.Spec.Containers); err != nil {
		return Mutation{Denied: err.Error()}
	}
	if !hasGPU {
		return Mutation{Patch: ops}
	}
	if privileged != "" {
		return Mutation{Denied: fmt.Sprintf("container %s is privileged", privileged)}
	}
	if pod.Spec.NodeName != "" {
		return Mutation{Denied: "pod has node assigned"}
	}
	ops = append(ops, PatchOp{Op: "add", Path: "/spec/schedulerName", Value: o.SchedulerName})
	return Mutation{Patch: ops}
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
func marshalPatch(ops []PatchOp) ([]byte, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	return json.Marshal(ops)
}
