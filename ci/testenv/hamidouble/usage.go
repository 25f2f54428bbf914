package hamidouble

import (
	"errors"
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
func (d *double) onPod(obj any) {
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

func (d *double) onPodDelete(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	f := d.currentFaults()
	switch {
	case f.KeepDeletedUsage:
	case f.KeepDeletedUntilFiltered:
		d.mu.Lock()
		defer d.mu.Unlock()
		u, ok := d.usage[p.UID]
		if !ok || !d.raceArmed {
			delete(d.usage, p.UID) // the race was met already: forgotten at once
			return
		}
		u.deleted = true
		d.usage[p.UID] = u
		d.log.Debug(Banner+": deleted pod kept until a Filter of its node (delete race fault)", "pod", podKey(p))
	case f.ForgetDeletedAfter > 0:
		// The delete race (HAMI-FACTS.md §3e): Filters that the delete
		// triggers in kube-scheduler still count the deleted pod.
		uid := p.UID
		d.log.Debug(Banner+": deleted pod forgotten late (delete race fault)", "pod", podKey(p), "after", f.ForgetDeletedAfter.String())
		d.afterFunc(f.ForgetDeletedAfter, func() { d.forget(uid) })
	default:
		d.forget(p.UID)
	}
}

// countedPods is how many pods' allocations the double counts as used
// (bound, binding, or forgotten late under the delete-race fault).
func (d *double) countedPods() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.usage)
}

func (d *double) forget(uid types.UID) {
	d.mu.Lock()
	delete(d.usage, uid)
	d.mu.Unlock()
}

// forgetDeletedLocked forgets the deleted pods still counted
// (Faults.KeepDeletedUntilFiltered) whose usage match says, and returns how
// many. Call with d.mu held.
func (d *double) forgetDeletedLocked(match func(podUsage) bool) int {
	n := 0
	for uid, u := range d.usage {
		if u.deleted && match(u) {
			delete(d.usage, uid)
			n++
		}
	}
	return n
}

// errNoGPU is GetNodeDevices' answer for an empty register annotation.
var errNoGPU = errors.New("no gpu found on node")

// nodeCards is a node as Filter sees it: its registered NVIDIA cards (or,
// with RegisterInstantly, the cards its register annotation lists now while
// allocatable nvidia.com/gpu > 0) plus the usage of every counted pod, and
// the live cordon annotation (hami.io/device-cordon takes effect
// immediately, pkg/device/nvidia/device.go@v2.10.0). ok is false when the
// node is not registered. Call with d.mu held.
func (d *double) nodeCards(name string, f Faults) (nodeCards, bool) {
	out := nodeCards{Name: name}
	live, err := d.node(name)
	if err == nil {
		out.Cordoned = splitList(live.Annotations[gpus.AnnoCordon])
	}
	if !d.cfg.RegisterInstantly {
		devs, ok := d.reg.registered(name)
		if !ok {
			return out, false
		}
		out.Cards = cardsOf(devs, true)
		return d.withUsage(out), true
	}
	if err != nil {
		return out, true
	}
	q, ok := live.Status.Allocatable[gpus.ResourceGPU]
	if !f.IgnoreRegistrationGate && (!ok || q.Cmp(resource.Quantity{}) <= 0) {
		return out, true
	}
	devs, err := gpus.DecodeRegister(live.Annotations[gpus.AnnoRegister])
	if err != nil {
		if live.Annotations[gpus.AnnoRegister] != "" {
			d.log.Warn(Banner+": unreadable register annotation", "node", name, "err", err)
		}
		return out, true
	}
	out.Cards = cardsOf(devs, true)
	return d.withUsage(out), true
}

// cardsOf turns registered devices into cards. For Filter only cards whose
// type contains "NVIDIA" count (getNodeResources); /metrics lists them all.
func cardsOf(devs []gpus.DeviceInfo, nvidiaOnly bool) []card {
	var out []card
	for _, dev := range devs {
		if nvidiaOnly && !strings.Contains(strings.ToLower(dev.Type), "nvidia") {
			continue
		}
		out = append(out, card{UUID: dev.ID, Index: dev.Index, Type: dev.Type, Health: dev.Health,
			Count: dev.Count, TotalMem: dev.Devmem, TotalCores: dev.Devcore})
	}
	return out
}

// withUsage adds the usage of every counted pod on the node to its cards.
// Call with d.mu held.
func (d *double) withUsage(n nodeCards) nodeCards {
	byUUID := map[string]int{}
	for i, c := range n.Cards {
		byUUID[c.UUID] = i
	}
	for _, u := range d.usage {
		if u.Node != n.Name {
			continue
		}
		pd, err := gpus.DecodePodDevices(u.Devices)
		if err != nil {
			continue
		}
		for _, g := range pd.All() {
			if i, ok := byUUID[g.UUID]; ok {
				n.Cards[i].Used++
				n.Cards[i].UsedMem += g.MemoryMB
				n.Cards[i].UsedCores += g.Cores
			}
		}
	}
	return n
}
