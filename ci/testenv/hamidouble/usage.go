package hamidouble

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// onPod counts a pod that carries HAMi's Filter annotations, whatever its
// bind phase (HAMi counts Pending pods that passed Filter: phantom usage).
// Finished pods release their cards.
func (d *Double) onPod(obj any) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		d.forget(p.UID)
		return
	}
	node, devs := p.Annotations[gpus.AnnoVGPUNode], p.Annotations[gpus.AnnoDevicesAllocated]
	if node == "" || devs == "" {
		return
	}
	d.mu.Lock()
	d.usage[p.UID] = podUsage{Namespace: p.Namespace, Name: p.Name, Node: node, Devices: devs}
	d.mu.Unlock()
}

func (d *Double) onPodDelete(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if d.currentFaults().KeepDeletedUsage {
		return
	}
	d.forget(p.UID)
}

func (d *Double) forget(uid types.UID) {
	d.mu.Lock()
	delete(d.usage, uid)
	d.mu.Unlock()
}

// nodeCards reads a node's NVIDIA cards from its register annotation, only
// when allocatable nvidia.com/gpu > 0 (HAMi v2.10's registration gate), and
// adds the usage of every counted pod. Cards whose type lacks "NVIDIA" are
// not NVIDIA cards for HAMi and are skipped. Call with d.mu held.
func (d *Double) nodeCards(node *corev1.Node, f Faults) NodeCards {
	out := NodeCards{Name: node.Name, Cordoned: splitList(node.Annotations[gpus.AnnoCordon])}
	q, ok := node.Status.Allocatable[gpus.ResourceGPU]
	if !f.IgnoreRegistrationGate && (!ok || q.Cmp(resource.Quantity{}) <= 0) {
		return out
	}
	devs, err := gpus.DecodeRegister(node.Annotations[gpus.AnnoRegister])
	if err != nil {
		if node.Annotations[gpus.AnnoRegister] != "" {
			d.log.Warn(Banner+": unreadable register annotation", "node", node.Name, "err", err)
		}
		return out
	}
	byUUID := map[string]int{}
	for _, dev := range devs {
		if !strings.Contains(strings.ToLower(dev.Type), "nvidia") {
			continue
		}
		byUUID[dev.ID] = len(out.Cards)
		out.Cards = append(out.Cards, Card{UUID: dev.ID, Index: dev.Index, Type: dev.Type, Health: dev.Health,
			Count: dev.Count, TotalMem: dev.Devmem, TotalCores: dev.Devcore})
	}
	for _, u := range d.usage {
		if u.Node != node.Name {
			continue
		}
		pd, err := gpus.DecodePodDevices(u.Devices)
		if err != nil {
			continue
		}
		for _, g := range pd.All() {
			if i, ok := byUUID[g.UUID]; ok {
				out.Cards[i].Used++
				out.Cards[i].UsedMem += g.MemoryMB
				out.Cards[i].UsedCores += g.Cores
			}
		}
	}
	return out
}
