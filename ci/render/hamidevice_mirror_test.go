package render

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
)

// How the two upstream programs that were handed HAMi's device file read it,
// mirrored field type for field type, so a test can hold every device file
// the lab renders to their rules without running them.
//
// Both read the file with gopkg.in/yaml.v2's Unmarshal (HAMi v2.10.0
// pkg/scheduler/config/config.go:26 and :491-492, go.mod:29 v2.4.0;
// mock-device-plugin v1.0.1 internal/pkg/config/config.go:23 and :66,
// go.mod:8 v2.4.0). go.yaml.in/yaml/v2 is the same library under the YAML
// organisation's module path (v2.4.3 here), with the same non-strict
// semantics: a key with no field is ignored, a value that cannot become its
// field's type is an error ("cannot unmarshal !!map into []…"). A mirror
// therefore needs every field whose type could reject a value of a lab's
// file; blocks a lab never writes are mirrored only as deep as their shape
// (mapping or list), which is what decides the chart default's fate below.

// hamiSchedulerConfig mirrors Config, HAMi v2.10.0
// pkg/scheduler/config/config.go:76-90. The vendor blocks other than nvidia,
// iluvatars and vnpus are mappings there (structs) and are left out: no lab
// writes them, and a left-out key is ignored exactly as upstream ignores
// unknown keys.
type hamiSchedulerConfig struct {
	NvidiaConfig   hamiNvidiaConfig     `yaml:"nvidia"`
	IluvatarConfig []hamiIluvatarConfig `yaml:"iluvatars"` // config.go:82
	VNPUs          hamiVNPUs            `yaml:"vnpus"`     // config.go:89: a mapping
}

// hamiNvidiaConfig mirrors nvidia.NvidiaConfig and its inline
// NodeDefaultConfig, HAMi v2.10.0 pkg/device/nvidia/device.go:94-128.
type hamiNvidiaConfig struct {
	// NodeDefaultConfig, inline (device.go:96, :117-128).
	DeviceSplitCount          *uint    `yaml:"deviceSplitCount"`
	DeviceMemoryScaling       *float64 `yaml:"deviceMemoryScaling"`
	DeviceCoreScaling         *float64 `yaml:"deviceCoreScaling"`
	PreConfiguredDeviceMemory *int64   `yaml:"preConfiguredDeviceMemory"`
	LogLevel                  *string  `yaml:"libCudaLogLevel"` // LibCudaLogLevel string, device.go:85
	EnableNUMATopology        *bool    `yaml:"enableNumaTopology"`

	ResourceCountName            string `yaml:"resourceCountName"`
	ResourceMemoryName           string `yaml:"resourceMemoryName"`
	ResourceCoreName             string `yaml:"resourceCoreName"`
	ResourceMemoryPercentageName string `yaml:"resourceMemoryPercentageName"`
	ResourcePriority             string `yaml:"resourcePriorityName"`
	OverwriteEnv                 bool   `yaml:"overwriteEnv"`
	DefaultMemory                int32  `yaml:"defaultMemory"`
	DefaultCores                 int32  `yaml:"defaultCores"`
	DefaultGPUNum                int32  `yaml:"defaultGPUNum"`
	MemoryFactor                 int32  `yaml:"memoryFactor"`
	DisableCoreLimit             bool   `yaml:"disableCoreLimit"`
	// device.AllowedMigProfiles, pkg/device/devices.go:101-104.
	MigProfileAllowlist []struct {
		Models   []string `yaml:"models"`
		Profiles []string `yaml:"profiles"`
	} `yaml:"migProfileAllowlist"`
	GPUCorePolicy    string `yaml:"gpuCorePolicy"` // GPUCoreUtilizationPolicy string, device.go:77
	RuntimeClassName string `yaml:"runtimeClassName"`
}

// hamiIluvatarConfig mirrors iluvatar.IluvatarConfig, HAMi v2.10.0
// pkg/device/iluvatar/device.go:53-59.
type hamiIluvatarConfig struct {
	CommonWord         string `yaml:"commonWord"`
	ChipName           string `yaml:"chipName"`
	ResourceCountName  string `yaml:"resourceCountName"`
	ResourceMemoryName string `yaml:"resourceMemoryName"`
	ResourceCoreName   string `yaml:"resourceCoreName"`
}

// hamiVNPUs mirrors ascend.VNPUs, HAMi v2.10.0 pkg/device/ascend/vnpu.go:45-48
// (VNPUConfig :26-41, Template :19-24).
type hamiVNPUs struct {
	HamiVnpuCore bool `yaml:"hamiVnpuCore"`
	Configs      []struct {
		CommonWord         string `yaml:"commonWord"`
		ChipName           string `yaml:"chipName"`
		ResourceName       string `yaml:"resourceName"`
		ResourceMemoryName string `yaml:"resourceMemoryName"`
		ResourceCoreName   string `yaml:"resourceCoreName"`
		MemoryAllocatable  int64  `yaml:"memoryAllocatable"`
		MemoryCapacity     int64  `yaml:"memoryCapacity"`
		MemoryFactor       int32  `yaml:"memoryFactor"`
		AICore             int32  `yaml:"aiCore"`
		AICPU              int32  `yaml:"aiCPU"`
		RuntimeClassName   string `yaml:"runtimeClassName"`
		OverwriteEnv       bool   `yaml:"overwriteEnv"`
		Templates          []struct {
			Name   string `yaml:"name"`
			Memory int64  `yaml:"memory"`
			AICore int32  `yaml:"aiCore"`
			AICPU  int32  `yaml:"aiCPU"`
		} `yaml:"templates"`
		SuperPod bool `yaml:"superPod"`
	} `yaml:"configs"`
}

// parseAsHAMiScheduler is LoadConfig, validateConfig and the nvidia part of
// InitDevicesWithConfig of HAMi v2.10.0 (pkg/scheduler/config/config.go:484-497,
// :261-279, :132-138): the file must decode, at least one device block must
// be set, and the MIG allowlist must be valid. The lab's file sets only the
// nvidia block, so the blocks left out of the mirror count as empty.
func parseAsHAMiScheduler(file []byte) (*hamiSchedulerConfig, error) {
	var c hamiSchedulerConfig
	if err := yamlv2.Unmarshal(file, &c); err != nil {
		return nil, err
	}
	if reflect.DeepEqual(c.NvidiaConfig, hamiNvidiaConfig{}) && len(c.IluvatarConfig) == 0 && len(c.VNPUs.Configs) == 0 {
		return nil, errors.New("all configurations are empty") // config.go:278
	}
	// InitNvidiaDevice exits on an invalid MIG allowlist
	// (pkg/device/nvidia/device.go:171-173; the rules, mig_profiles.go:28-41).
	for _, m := range c.NvidiaConfig.MigProfileAllowlist {
		if len(m.Models) == 0 || len(m.Profiles) == 0 {
			return nil, errors.New("MIG profile allowlist must define models and profiles")
		}
		for _, p := range m.Profiles {
			parts := strings.SplitN(p, ".", 2)
			if len(parts) != 2 || len(parts[0]) < 2 || !strings.HasSuffix(parts[0], "g") {
				return nil, fmt.Errorf("invalid MIG profile %q", p)
			}
		}
	}
	return &c, nil
}

// mockPluginConfig mirrors Config of mock-device-plugin v1.0.1
// (internal/pkg/config/config.go:40-52): the same file, but vnpus and
// iluvatars are lists there.
type mockPluginConfig struct {
	NvidiaConfig struct {
		// NodeDefaultConfig, inline (internal/pkg/api/device/nvidia/device.go:45, :71-77).
		DeviceSplitCount    *uint    `yaml:"deviceSplitCount"`
		DeviceMemoryScaling *float64 `yaml:"deviceMemoryScaling"`
		DeviceCoreScaling   *float64 `yaml:"deviceCoreScaling"`
		LogLevel            *string  `yaml:"libCudaLogLevel"`
		// nvidia/device.go:46-62.
		ResourceCountName            string `yaml:"resourceCountName"`
		ResourceMemoryName           string `yaml:"resourceMemoryName"`
		ResourceCoreName             string `yaml:"resourceCoreName"`
		ResourceMemoryPercentageName string `yaml:"resourceMemoryPercentageName"`
		ResourcePriority             string `yaml:"resourcePriorityName"`
		OverwriteEnv                 bool   `yaml:"overwriteEnv"`
		DefaultMemory                int32  `yaml:"defaultMemory"`
		DefaultCores                 int32  `yaml:"defaultCores"`
		DefaultGPUNum                int32  `yaml:"defaultGPUNum"`
		MemoryFactor                 int32  `yaml:"memoryFactor"`
		DisableCoreLimit             bool   `yaml:"disableCoreLimit"`
		MigGeometriesList            []struct {
			Models []string `yaml:"models"`
		} `yaml:"knownMigGeometries"`
		GPUCorePolicy    string `yaml:"gpuCorePolicy"`
		RuntimeClassName string `yaml:"runtimeClassName"`
	} `yaml:"nvidia"`
	IluvatarConfig []hamiIluvatarConfig `yaml:"iluvatars"` // config.go:46, iluvatar/device.go:19-25
	// config.go:51: []ascend.VNPUConfig (internal/pkg/api/device/ascend/device.go:39-50).
	VNPUs []struct {
		CommonWord string `yaml:"commonWord"`
		ChipName   string `yaml:"chipName"`
	} `yaml:"vnpus"`
}

// parseAsMockPlugin is LoadConfig of mock-device-plugin v1.0.1
// (internal/pkg/config/config.go:58-71), which the plugin runs at start and
// exits on (klog.Fatalf, :117-120).
func parseAsMockPlugin(file []byte) error {
	var c mockPluginConfig
	return yamlv2.Unmarshal(file, &c)
}
