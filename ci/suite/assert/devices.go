package assert

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// Allocated decodes a pod's hami.io/vgpu-devices-allocated annotation, the
// record HAMi's Filter writes and never erases.
func Allocated(pod string, annotations map[string]string) ([]gpus.ContainerDevice, error) {
	v, ok := annotations[gpus.AnnoDevicesAllocated]
	if !ok || v == "" {
		return nil, fmt.Errorf("pod %s has no %s annotation: HAMi's Filter did not allocate it", pod, gpus.AnnoDevicesAllocated)
	}
	devs, err := gpus.DecodePodDevices(v)
	if err != nil {
		return nil, fmt.Errorf("pod %s: %w", pod, err)
	}
	all := devs.All()
	if len(all) == 0 {
		return nil, fmt.Errorf("pod %s: %s=%q grants no device", pod, gpus.AnnoDevicesAllocated, v)
	}
	return all, nil
}

// SameCard checks that every pod holds exactly one device and all hold the
// same one; it returns that card's UUID.
func SameCard(allocs map[string][]gpus.ContainerDevice) (string, error) {
	if len(allocs) == 0 {
		return "", fmt.Errorf("no pods to compare")
	}
	byCard := map[string][]string{}
	for _, pod := range sortedKeys(allocs) {
		devs := allocs[pod]
		if len(devs) != 1 {
			return "", fmt.Errorf("pod %s holds %d devices, want 1", pod, len(devs))
		}
		byCard[devs[0].UUID] = append(byCard[devs[0].UUID], pod)
	}
	if len(byCard) != 1 {
		var parts []string
		for _, uuid := range sortedKeys(byCard) {
			parts = append(parts, fmt.Sprintf("%s on %s", strings.Join(byCard[uuid], ", "), uuid))
		}
		return "", fmt.Errorf("pods are spread over %d cards, want one shared card: %s", len(byCard), strings.Join(parts, "; "))
	}
	for uuid := range byCard {
		return uuid, nil
	}
	panic("unreachable")
}

// DistinctCards checks that a pod's devices are n different cards.
func DistinctCards(pod string, devs []gpus.ContainerDevice, n int) error {
	seen := map[string]bool{}
	var uuids []string
	for _, d := range devs {
		uuids = append(uuids, d.UUID)
		seen[d.UUID] = true
	}
	if len(devs) != n || len(seen) != n {
		return fmt.Errorf("pod %s holds %d devices on %d distinct cards (%s), want %d distinct cards",
			pod, len(devs), len(seen), strings.Join(uuids, ", "), n)
	}
	return nil
}

// Totals sums what the given allocations hold on one card.
func Totals(uuid string, allocs map[string][]gpus.ContainerDevice) (memMB, cores int) {
	for _, devs := range allocs {
		for _, d := range devs {
			if d.UUID == uuid {
				memMB += d.MemoryMB
				cores += d.Cores
			}
		}
	}
	return memMB, cores
}

// CardTotals checks a card's summed memory and cores.
func CardTotals(uuid string, allocs map[string][]gpus.ContainerDevice, wantMB, wantCores int) error {
	mem, cores := Totals(uuid, allocs)
	if mem != wantMB || cores != wantCores {
		return fmt.Errorf("card %s holds %d MB and %d%% cores, want %d MB and %d%%", uuid, mem, cores, wantMB, wantCores)
	}
	return nil
}

// OnNode checks that every device of a pod is a card registered on the node.
func OnNode(pod, node string, devs []gpus.ContainerDevice, registered []gpus.DeviceInfo) error {
	known := map[string]bool{}
	for _, r := range registered {
		known[r.ID] = true
	}
	for _, d := range devs {
		if !known[d.UUID] {
			return fmt.Errorf("pod %s holds card %s, which is not registered on node %s", pod, d.UUID, node)
		}
	}
	return nil
}

// WholeCard checks an exclusive grant: the card's whole memory and 100% cores.
func WholeCard(pod string, devs []gpus.ContainerDevice, card gpus.DeviceInfo) error {
	if len(devs) != 1 {
		return fmt.Errorf("pod %s holds %d devices, want 1", pod, len(devs))
	}
	d := devs[0]
	if d.UUID != card.ID || d.MemoryMB != card.Devmem || d.Cores != card.Devcore {
		return fmt.Errorf("pod %s holds %s with %d MB and %d%% cores, want the whole card %s: %d MB and %d%%",
			pod, d.UUID, d.MemoryMB, d.Cores, card.ID, card.Devmem, card.Devcore)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
