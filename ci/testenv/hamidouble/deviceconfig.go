package hamidouble

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// deviceConfig is the part of HAMi's device config file (the chart's
// ConfigMap <release>-scheduler-device, key device-config.yaml) the double
// uses: the nvidia section's field names of NvidiaConfig and
// NodeDefaultConfig (pkg/device/nvidia/device.go@v2.10.0).
type deviceConfig struct {
	DeviceSplitCount int
	DefaultMemory    int
	DefaultCores     int
	DefaultGPUNum    int
	MemoryFactor     int
}

type deviceConfigFile struct {
	Nvidia *struct {
		ResourceCountName            string `json:"resourceCountName"`
		ResourceMemoryName           string `json:"resourceMemoryName"`
		ResourceMemoryPercentageName string `json:"resourceMemoryPercentageName"`
		ResourceCoreName             string `json:"resourceCoreName"`
		ResourcePriorityName         string `json:"resourcePriorityName"`
		DeviceSplitCount             int    `json:"deviceSplitCount"`
		DefaultMemory                int32  `json:"defaultMemory"`
		DefaultCores                 int32  `json:"defaultCores"`
		DefaultGPUNum                int32  `json:"defaultGPUNum"`
		MemoryFactor                 int32  `json:"memoryFactor"`
	} `json:"nvidia"`
}

// loadDeviceConfig reads a device config file. Unknown keys are ignored, as
// HAMi's yaml.Unmarshal ignores them (config.LoadConfig). Resource names
// other than the nvidia.com/* ones the double knows are refused: the double
// cannot honour them.
func loadDeviceConfig(path string) (deviceConfig, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return deviceConfig{}, fmt.Errorf("%s: device config (--device-config-file): %w", Banner, err)
	}
	var file deviceConfigFile
	if err := yaml.Unmarshal(raw, &file); err != nil {
		return deviceConfig{}, fmt.Errorf("%s: device config %s: %w", Banner, path, err)
	}
	n := file.Nvidia
	if n == nil {
		return deviceConfig{}, fmt.Errorf("%s: device config %s has no nvidia section; the double models only NVIDIA devices", Banner, path)
	}
	for field, got := range map[string][2]string{
		"resourceCountName":            {n.ResourceCountName, gpus.ResourceGPU},
		"resourceMemoryName":           {n.ResourceMemoryName, gpus.ResourceGPUMem},
		"resourceMemoryPercentageName": {n.ResourceMemoryPercentageName, gpus.ResourceGPUMemPercent},
		"resourceCoreName":             {n.ResourceCoreName, gpus.ResourceGPUCores},
		"resourcePriorityName":         {n.ResourcePriorityName, gpus.ResourcePriority},
	} {
		if got[0] != "" && got[0] != got[1] {
			return deviceConfig{}, fmt.Errorf("%s: device config %s: nvidia.%s is %q; the double only knows %q", Banner, path, field, got[0], got[1])
		}
	}
	return deviceConfig{DeviceSplitCount: n.DeviceSplitCount, DefaultMemory: int(n.DefaultMemory),
		DefaultCores: int(n.DefaultCores), DefaultGPUNum: int(n.DefaultGPUNum), MemoryFactor: int(n.MemoryFactor)}, nil
}
