package gpus

import (
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// DeviceInfo is one card in HAMi v2.10's JSON register annotation. HAMi's
// fields are all omitempty, so Health must be written explicitly: a card
// without "health":true is unhealthy.
type DeviceInfo struct {
	ID      string `json:"id"`
	Index   int    `json:"index"`
	Count   int    `json:"count"`
	Devmem  int    `json:"devmem"`
	Devcore int    `json:"devcore"`
	Type    string `json:"type"`
	Numa    int    `json:"numa"`
	Mode    string `json:"mode"`
	Health  bool   `json:"health"`
}

// CardUUID derives a stable GPU UUID from lab, tenant, worker and card index,
// so re-running a lab registers the same cards.
func CardUUID(labName, tenant, worker string, index int) string {
	h := sha1.Sum([]byte(labName + "/" + tenant + "/" + worker + "/" + strconv.Itoa(index)))
	return fmt.Sprintf("GPU-%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// Devices returns the register entries of one worker.
func Devices(l *lab.Lab, tenant string, w lab.Worker) []DeviceInfo {
	cards := w.Cards()
	out := make([]DeviceInfo, len(cards))
	for i, c := range cards {
		out[i] = DeviceInfo{
			ID:      CardUUID(l.Name, tenant, w.Name, c.Index),
			Index:   c.Index,
			Count:   l.HAMi.SplitCount,
			Devmem:  c.MemoryMB,
			Devcore: 100,
			Type:    c.Type,
			Numa:    0,
			Mode:    "hami-core",
			Health:  true,
		}
	}
	return out
}

// EncodeRegister renders the hami.io/node-nvidia-register value.
func EncodeRegister(devs []DeviceInfo) string {
	b, err := json.Marshal(devs)
	if err != nil {
		panic(err) // plain struct: cannot fail
	}
	return string(b)
}

// DecodeRegister parses a hami.io/node-nvidia-register value (JSON only, as
// HAMi v2.10 accepts).
func DecodeRegister(v string) ([]DeviceInfo, error) {
	var devs []DeviceInfo
	if err := json.Unmarshal([]byte(v), &devs); err != nil {
		return nil, fmt.Errorf("decode %s: %w (HAMi v2.10 accepts only the JSON form)", AnnoRegister, err)
	}
	return devs, nil
}

// GPUCapacity is the nvidia.com/gpu count a worker advertises: split count
// times cards. HAMi only uses it as a registration gate (> 0).
func GPUCapacity(l *lab.Lab, w lab.Worker) int {
	return l.HAMi.SplitCount * len(w.Cards())
}
