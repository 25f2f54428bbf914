package hamidouble

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// percentUnset is HAMi's sentinel for "no gpumem-percentage given".
const percentUnset = 101

// containerRequest is one container's NVIDIA request as HAMi's Filter reads
// it (HAMi v2.10.0 pkg/scheduler/scheduler.go:1069 calls
// device.Resourcereqs, pkg/device/devices.go:639).
type containerRequest struct {
	// Nums is nvidia.com/gpu: how many cards; 0 means no request.
	Nums int
	// MemMB is nvidia.com/gpumem; 0 when memory is given as a percentage.
	MemMB int
	// MemPercent is nvidia.com/gpumem-percentage (≤ 100), or 101 when unset.
	MemPercent int
	// Cores is nvidia.com/gpucores (% of one card's compute).
	Cores int
}

// podRequest is everything Filter needs from a pod.
type podRequest struct {
	// Containers holds init containers first, then app containers, one entry
	// per container (Nums 0 for containers without GPUs), matching the
	// per-container segments of the device string.
	Containers []containerRequest
	UseTypes   []string
	NoUseTypes []string
	UseUUIDs   []string
	NoUseUUIDs []string
	// GPUPolicy is spread, binpack or mutex (from hami.io/gpu-scheduler-policy
	// or the default); NodePolicy is binpack or spread.
	GPUPolicy  string
	NodePolicy string
	// DefaultNodePolicy is --node-scheduler-policy, whatever the pod says
	// (for Faults.IgnoreNodePolicyAnnotation).
	DefaultNodePolicy string
}

// hasGPU reports whether any container asks for an NVIDIA card.
func (r podRequest) hasGPU() bool {
	for _, c := range r.Containers {
		if c.Nums > 0 {
			return true
		}
	}
	return false
}

// requestDefaults are the settings request parsing takes from HAMi's flags
// and device config.
type requestDefaults struct {
	GPUPolicy, NodePolicy string // --gpu-scheduler-policy, --node-scheduler-policy
	// DefaultMemory (MB) and DefaultCores are nvidia.defaultMemory and
	// nvidia.defaultCores; MemoryFactor multiplies nvidia.com/gpumem.
	DefaultMemory, DefaultCores, MemoryFactor int
}

func (d *double) requestDefaults() requestDefaults {
	return requestDefaults{GPUPolicy: d.cfg.GPUPolicy, NodePolicy: d.cfg.NodePolicy,
		DefaultMemory: d.cfg.DefaultMemory, DefaultCores: d.cfg.DefaultCores, MemoryFactor: d.cfg.MemoryFactor}
}

// readPodRequest parses a pod's NVIDIA request with the chart's device
// config (defaultMemory 0, defaultCores 0, memoryFactor 1).
func readPodRequest(pod *corev1.Pod, defaultGPUPolicy, defaultNodePolicy string) (podRequest, error) {
	return readPodRequestWith(pod, requestDefaults{GPUPolicy: defaultGPUPolicy, NodePolicy: defaultNodePolicy, MemoryFactor: 1})
}

// readPodRequestWith parses a pod's NVIDIA request (GenerateResourceRequests,
// pkg/device/nvidia/device.go@v2.10.0): each resource from limits, else
// requests; gpumem times memoryFactor; when neither gpumem nor
// gpumem-percentage is set the container asks for defaultMemory MB, or 100 %
// of the card's memory when that is 0; cores default to defaultCores.
// Policies fall back to the defaults.
func readPodRequestWith(pod *corev1.Pod, def requestDefaults) (podRequest, error) {
	var r podRequest
	all := append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...)
	for _, c := range all {
		cr, err := readContainer(c, def)
		if err != nil {
			return podRequest{}, fmt.Errorf("pod %s/%s: container %s: %w", pod.Namespace, pod.Name, c.Name, err)
		}
		r.Containers = append(r.Containers, cr)
	}
	a := pod.Annotations
	r.UseTypes = splitList(a[gpus.AnnoUseGPUType])
	r.NoUseTypes = splitList(a[gpus.AnnoNoUseGPUType])
	r.UseUUIDs = splitList(a[gpus.AnnoUseGPUUUID])
	r.NoUseUUIDs = splitList(a[gpus.AnnoNoUseGPUUUID])
	// An annotation that is present wins even when empty, as in HAMi:
	// util.GetGPUSchedulerPolicyByPod (pkg/util/util.go@v2.10.0) and
	// resolveNodeSchedulerPolicy (pkg/scheduler/score.go@v2.10.0) both test
	// the key with ", ok". An empty node policy then sorts as binpack.
	r.GPUPolicy, r.NodePolicy, r.DefaultNodePolicy = def.GPUPolicy, def.NodePolicy, def.NodePolicy
	if v, ok := a[gpus.AnnoGPUPolicy]; ok {
		r.GPUPolicy = v
	}
	if v, ok := a[gpus.AnnoNodePolicy]; ok {
		r.NodePolicy = v
	}
	return r, nil
}

func readContainer(c corev1.Container, def requestDefaults) (containerRequest, error) {
	num, ok, err := resourceInt(c, gpus.ResourceGPU)
	if err != nil || !ok || num == 0 {
		return containerRequest{}, err
	}
	cr := containerRequest{Nums: num, MemPercent: percentUnset}
	mem, memSet, err := resourceInt(c, gpus.ResourceGPUMem)
	if err != nil {
		return containerRequest{}, err
	}
	pct, pctSet, err := resourceInt(c, gpus.ResourceGPUMemPercent)
	if err != nil {
		return containerRequest{}, err
	}
	if memSet {
		cr.MemMB = mem * max(def.MemoryFactor, 1)
	}
	if pctSet && pct > 0 {
		cr.MemPercent = min(pct, 100)
	}
	// gpumem 0 and a non-positive percentage count as unset.
	if cr.MemMB == 0 && cr.MemPercent == percentUnset {
		if def.DefaultMemory != 0 {
			cr.MemMB = def.DefaultMemory
		} else {
			cr.MemPercent = 100
		}
	}
	cores, coresSet, err := resourceInt(c, gpus.ResourceGPUCores)
	if err != nil {
		return containerRequest{}, err
	}
	cr.Cores = cores
	if !coresSet {
		cr.Cores = def.DefaultCores
	}
	return cr, nil
}

// resourceInt reads an integer resource from limits, else requests.
func resourceInt(c corev1.Container, name corev1.ResourceName) (int, bool, error) {
	q, ok := c.Resources.Limits[name]
	if !ok {
		q, ok = c.Resources.Requests[name]
	}
	if !ok {
		return 0, false, nil
	}
	v, isInt := q.AsInt64()
	if !isInt || v < 0 || v > 1<<31-1 {
		return 0, true, fmt.Errorf("%s: %s is not a non-negative integer", name, q.String())
	}
	return int(v), true, nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
