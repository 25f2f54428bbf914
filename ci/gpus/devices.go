package gpus

import (
	"fmt"
	"strconv"
	"strings"
)

// ContainerDevice is one device grant in a pod's device string.
type ContainerDevice struct {
	UUID     string
	Type     string // vendor word, "NVIDIA"
	MemoryMB int
	Cores    int
}

// PodDevices is the per-container list HAMi writes: init containers first,
// then app containers; a container without devices has an empty entry.
type PodDevices [][]ContainerDevice

// Encode renders the hami.io/vgpu-devices-* value: each device
// "UUID,Type,mem,cores:" and each container terminated by ";".
func (p PodDevices) Encode() string {
	var b strings.Builder
	for _, ctr := range p {
		for _, d := range ctr {
			fmt.Fprintf(&b, "%s,%s,%d,%d:", d.UUID, d.Type, d.MemoryMB, d.Cores)
		}
		b.WriteString(";")
	}
	return b.String()
}

// DecodePodDevices parses a hami.io/vgpu-devices-* value. The erased form
// (";" per container) decodes to empty containers.
func DecodePodDevices(v string) (PodDevices, error) {
	if v == "" {
		return nil, nil
	}
	segs := strings.Split(v, ";")
	if segs[len(segs)-1] != "" {
		return nil, fmt.Errorf("device string %q: must end with ';'", v)
	}
	segs = segs[:len(segs)-1]
	out := make(PodDevices, len(segs))
	for i, seg := range segs {
		for _, dev := range strings.Split(seg, ":") {
			if dev == "" {
				continue
			}
			f := strings.Split(dev, ",")
			if len(f) != 4 {
				return nil, fmt.Errorf("device string %q: device %q must be UUID,Type,memMB,cores", v, dev)
			}
			mem, err1 := strconv.Atoi(f[2])
			cores, err2 := strconv.Atoi(f[3])
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("device string %q: device %q has non-numeric memory or cores", v, dev)
			}
			out[i] = append(out[i], ContainerDevice{UUID: f[0], Type: f[1], MemoryMB: mem, Cores: cores})
		}
	}
	return out, nil
}

// Erased is the value the real device plugin leaves in
// hami.io/vgpu-devices-to-allocate once every container is allocated.
func Erased(containers int) string { return strings.Repeat(";", containers) }

// All flattens the grants of every container.
func (p PodDevices) All() []ContainerDevice {
	var out []ContainerDevice
	for _, c := range p {
		out = append(out, c...)
	}
	return out
}
