package render

import (
	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// hamiDeviceConfig is the device file HAMi's extender reads with
// --device-config-file, in both backends: the local environment writes it,
// the real lab hands it to chart 2.10.0 as device-config.content, which the
// chart puts into ConfigMap hami-scheduler-device (key device-config.yaml,
// charts/hami/templates/scheduler/device-configmap.yaml:10-12 at v2.10.0)
// instead of its own file. Its nvidia block is the chart's default block
// field for field (a test holds it to `helm template`'s output); the other
// vendors' blocks, which name resources no lab card has, are left out — the
// chart's vnpus block is what made mock-device-plugin v1.0.1 exit
// (hamidevice_parse_test.go records why).
type hamiDeviceConfig struct {
	NVIDIA nvidiaDeviceConfig `json:"nvidia"`
}

// nvidiaDeviceConfig is the device configuration's nvidia block.
type nvidiaDeviceConfig struct {
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

// hamiDeviceConfigFor is the lab's device configuration: the chart's defaults
// (values.yaml at v2.10.0) with the lab's split count. MIG profiles are left
// out: the lab's simulated cards have no MIG mode.
func hamiDeviceConfigFor(l *lab.Lab) hamiDeviceConfig {
	return hamiDeviceConfig{NVIDIA: nvidiaDeviceConfig{
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

// HAMiDeviceConfigYAML renders hamiDeviceConfigFor as the file the extender reads.
func HAMiDeviceConfigYAML(l *lab.Lab) ([]byte, error) { return YAML(hamiDeviceConfigFor(l)) }
