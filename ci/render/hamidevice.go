package render

import (
	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// HAMiDeviceConfig is the NVIDIA block of the device configuration HAMi's
// extender reads with --device-config-file: what chart 2.10.0 renders into
// ConfigMap hami-scheduler-device (key device-config.yaml, template
// charts/hami/templates/scheduler/device-configmap.yaml at v2.10.0) from the
// lab's values, field for field; a test holds it to `helm template`'s
// output. The real lab gets the chart's whole file; the local environment
// writes this block, the only one an NVIDIA lab reads (the other vendors'
// blocks name resources no lab card has).
type HAMiDeviceConfig struct {
	NVIDIA HAMiNvidiaConfig `json:"nvidia"`
}

// HAMiNvidiaConfig is the device configuration's nvidia block.
type HAMiNvidiaConfig struct {
	ResourceCountName            string `json:"resourceCountName"`
	ResourceMemoryName           string `json:"resourceMemoryName"`
	ResourceMemoryPercentageName string `json:"resourceMemoryPercentageName"`
	ResourceCoreName             string `json:"resourceCoreName"`
	ResourcePriorityName         string `json:"resourcePriorityName"`
	OverwriteEnv                 bool   `json:"overwriteEnv"`
	DefaultMemory                int    `json:"defaultMemory"`
	DefaultCores                 int    `json:"defaultCores"`
	DefaultGPUNum                int    `json:"defaultGPUNum"`
	PreConfiguredDeviceMemory    int    `json:"preConfiguredDeviceMemory"`
	MemoryFactor                 int    `json:"memoryFactor"`
	DeviceSplitCount             int    `json:"deviceSplitCount"`
	DeviceMemoryScaling          int    `json:"deviceMemoryScaling"`
	DeviceCoreScaling            int    `json:"deviceCoreScaling"`
	EnableNumaTopology           bool   `json:"enableNumaTopology"`
	GPUCorePolicy                string `json:"gpuCorePolicy"`
	LibCudaLogLevel              int    `json:"libCudaLogLevel"`
	RuntimeClassName             string `json:"runtimeClassName"`
	MigProfileAllowlist          []struct {
		Models   []string `json:"models"`
		Profiles []string `json:"profiles"`
	} `json:"migProfileAllowlist,omitempty"`
}

// HAMiDeviceConfigFor is the lab's device configuration: the chart's defaults
// (values.yaml at v2.10.0) with the lab's split count. MIG profiles are left
// out: the lab's simulated cards have no MIG mode.
func HAMiDeviceConfigFor(l *lab.Lab) HAMiDeviceConfig {
	return HAMiDeviceConfig{NVIDIA: HAMiNvidiaConfig{
		ResourceCountName:            gpus.ResourceGPU,
		ResourceMemoryName:           gpus.ResourceGPUMem,
		ResourceMemoryPercentageName: gpus.ResourceGPUMemPercent,
		ResourceCoreName:             gpus.ResourceGPUCores,
		ResourcePriorityName:         gpus.ResourcePriority,
		DefaultGPUNum:                1,
		MemoryFactor:                 1,
		DeviceSplitCount:             l.HAMi.SplitCount,
		DeviceMemoryScaling:          1,
		DeviceCoreScaling:            1,
		GPUCorePolicy:                "default",
		LibCudaLogLevel:              1,
	}}
}

// HAMiDeviceConfigYAML renders HAMiDeviceConfigFor as the file the extender reads.
func HAMiDeviceConfigYAML(l *lab.Lab) ([]byte, error) { return YAML(HAMiDeviceConfigFor(l)) }
