package assert

import (
	"fmt"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// Register checks a node's decoded hami.io/node-nvidia-register against the
// cards the lab spec gives its worker: same number of cards and, card by
// card in index order, the same memory and type, 100% cores and healthy.
func Register(node string, spec []lab.Card, got []gpus.DeviceInfo) error {
	if len(got) != len(spec) {
		return fmt.Errorf("node %s registers %d GPUs, the lab spec gives it %d", node, len(got), len(spec))
	}
	byIndex := map[int]gpus.DeviceInfo{}
	for _, d := range got {
		byIndex[d.Index] = d
	}
	for _, c := range spec {
		d, ok := byIndex[c.Index]
		if !ok {
			return fmt.Errorf("node %s registers no GPU with index %d (spec: %s)", node, c.Index, c.Model)
		}
		switch {
		case d.Devmem != c.MemoryMB:
			return fmt.Errorf("node %s GPU %d (%s) registers %d MB, the spec says %s has %d MB", node, c.Index, d.ID, d.Devmem, c.Model, c.MemoryMB)
		case d.Type != c.Type:
			return fmt.Errorf("node %s GPU %d (%s) registers type %q, the spec says %q", node, c.Index, d.ID, d.Type, c.Type)
		case d.Devcore != 100:
			return fmt.Errorf("node %s GPU %d (%s) registers %d%% cores, want 100", node, c.Index, d.ID, d.Devcore)
		case !d.Health:
			return fmt.Errorf("node %s GPU %d (%s) is registered unhealthy (\"health\" is not true)", node, c.Index, d.ID)
		}
	}
	return nil
}

// Version checks the API server's gitVersion against the pinned one.
func Version(tenant, got, want string) error {
	if got != want {
		return fmt.Errorf("tenant %s API server reports %s, the lab pins %s", tenant, got, want)
	}
	return nil
}
