package render

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// Every device file the lab renders — for the seed lab and every lab the
// repository's tests run — is one HAMi v2.10.0's scheduler reads and accepts
// (hamidevice_mirror_test.go), with the NVIDIA resource names the lab's cards
// are registered and requested under, memory counted in MB (memoryFactor 1,
// as every gpumem request in the seed and gpus.Advertised assume) and the
// lab's split count. Both backends read this file: the local environment
// writes it (ci/testenv), the real lab hands it to the chart as
// device-config.content.
func TestEveryDeviceFileIsOneHAMiAccepts(t *testing.T) {
	for name, l := range repositoryLabs(t) {
		for _, tn := range l.Tenants {
			v, err := HAMiValuesFor(l, tn.Name)
			if err != nil {
				t.Fatal(err)
			}
			file := []byte(v.DeviceConfig.Content)
			c, err := parseAsHAMiScheduler(file)
			if err != nil {
				t.Errorf("%s/%s: HAMi v2.10.0's scheduler would exit on the device file: %v\n%s", name, tn.Name, err, file)
				continue
			}
			n := c.NvidiaConfig
			for _, f := range []struct{ field, got, want string }{
				{"resourceCountName", n.ResourceCountName, gpus.ResourceGPU},
				{"resourceMemoryName", n.ResourceMemoryName, gpus.ResourceGPUMem},
				{"resourceCoreName", n.ResourceCoreName, gpus.ResourceGPUCores},
				{"resourceMemoryPercentageName", n.ResourceMemoryPercentageName, gpus.ResourceGPUMemPercent},
				{"resourcePriorityName", n.ResourcePriority, gpus.ResourcePriority},
			} {
				if f.got != f.want {
					t.Errorf("%s/%s: nvidia.%s = %q, want %q", name, tn.Name, f.field, f.got, f.want)
				}
			}
			if n.MemoryFactor != 1 {
				t.Errorf("%s/%s: nvidia.memoryFactor = %d, want 1 (requests in MB)", name, tn.Name, n.MemoryFactor)
			}
			if n.DeviceSplitCount == nil || int(*n.DeviceSplitCount) != l.HAMi.SplitCount {
				t.Errorf("%s/%s: nvidia.deviceSplitCount = %v, want %d", name, tn.Name, n.DeviceSplitCount, l.HAMi.SplitCount)
			}
			// Were the mock device plugin ever enabled again, it would read
			// this file too, and start.
			if err := parseAsMockPlugin(file); err != nil {
				t.Errorf("%s/%s: mock-device-plugin v1.0.1 would exit on the device file: %v", name, tn.Name, err)
			}
		}
	}
}

// chartDeviceFile is device-config.yaml of ConfigMap hami-scheduler-device
// in a helm rendering of chart 2.10.0.
func chartDeviceFile(t *testing.T, rendering []byte) []byte {
	t.Helper()
	for _, doc := range mustSplitYAMLDocs(t, rendering) {
		var cm corev1.ConfigMap
		if yaml.Unmarshal([]byte(doc), &cm) == nil && cm.Kind == "ConfigMap" && cm.Name == HAMiSchedulerObject+"-device" {
			return []byte(cm.Data["device-config.yaml"])
		}
	}
	t.Fatalf("rendering has no ConfigMap %s-device", HAMiSchedulerObject)
	return nil
}

// The chart's own device file — the template's fallback when
// device-config.content is empty (device-configmap.yaml:15-…, at v2.10.0),
// recorded in testdata/hami-chart-2.10.0/tenant-a.yaml — is the one the lab
// replaces. HAMi's scheduler reads it, but mock-device-plugin v1.0.1 exits on
// it: the chart writes vnpus as a mapping {hamiVnpuCore, configs}, HAMi
// v2.10.0 reads it so (pkg/scheduler/config/config.go:89, ascend.VNPUs), the
// plugin as a list (internal/pkg/config/config.go:51, []ascend.VNPUConfig),
// and yaml.v2 rejects a mapping for a list. That, and the plugin's ~120,000
// MB ceiling (gpus.Advertised), is why the lab runs no device plugin.
func TestChartDefaultDeviceFileIsTheOneReplaced(t *testing.T) {
	chart := chartDeviceFile(t, chartDefaultRender(t))
	c, err := parseAsHAMiScheduler(chart)
	if err != nil {
		t.Fatalf("HAMi's scheduler rules reject the chart's own device file: %v (the mirror is wrong)", err)
	}
	if len(c.VNPUs.Configs) == 0 || len(c.IluvatarConfig) == 0 || len(c.NvidiaConfig.MigProfileAllowlist) == 0 {
		t.Fatalf("the recorded file is not the chart's default (vnpus %d, iluvatars %d, MIG profiles %d)",
			len(c.VNPUs.Configs), len(c.IluvatarConfig), len(c.NvidiaConfig.MigProfileAllowlist))
	}
	err = parseAsMockPlugin(chart)
	if err == nil || !strings.Contains(err.Error(), "cannot unmarshal !!map into []") {
		t.Errorf("mock-device-plugin v1.0.1 on the chart's device file: err = %v, want yaml.v2's map-into-list error", err)
	}

	// The lab's values replace it: a non-empty device-config.content is what
	// the template puts in the ConfigMap instead (device-configmap.yaml:11-12).
	for name, l := range repositoryLabs(t) {
		for _, tn := range l.Tenants {
			v, err := HAMiValuesFor(l, tn.Name)
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(v.DeviceConfig.Content) == "" || v.DeviceConfig.Content == string(chart) {
				t.Errorf("%s/%s: device-config.content does not replace the chart's file:\n%s", name, tn.Name, v.DeviceConfig.Content)
			}
			if v.MockDevicePlugin.Enabled {
				t.Errorf("%s/%s: mockDevicePlugin.enabled is true", name, tn.Name)
			}
		}
	}
}

// The mirrors decide as yaml.v2 does for HAMi's types: unknown keys pass, a
// value of the wrong type fails, and HAMi's validation rejects a file that
// sets no device. Each row is a file one rule must catch or let through.
func TestDeviceFileParserRules(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		hamiErr    string // "" accepted
		mockErr    string
	}{
		{"the nvidia block alone", "nvidia:\n  resourceCountName: nvidia.com/gpu\n", "", ""},
		{"an unknown key", "nvidia:\n  resourceCountName: nvidia.com/gpu\n  futureKnob: 3\nfuture: {a: 1}\n", "", ""},
		{"libCudaLogLevel as a number, as the chart writes it", "nvidia:\n  libCudaLogLevel: 1\n", "", ""},
		{"a split count that is no number", "nvidia:\n  deviceSplitCount: ten\n", "cannot unmarshal", "cannot unmarshal"},
		{"a memoryFactor beyond int32", "nvidia:\n  memoryFactor: 4294967296\n", "cannot unmarshal", "cannot unmarshal"},
		{"a fractional memoryFactor (yaml.v2 truncates it)", "nvidia:\n  memoryFactor: 1.5\n", "", ""},
		{"a negative split count", "nvidia:\n  deviceSplitCount: -1\n", "cannot unmarshal", "cannot unmarshal"},
		{"vnpus as a list", "nvidia:\n  defaultGPUNum: 1\nvnpus:\n- chipName: 910B\n", "cannot unmarshal !!seq", ""},
		{"vnpus as a mapping", "nvidia:\n  defaultGPUNum: 1\nvnpus:\n  hamiVnpuCore: false\n", "", "cannot unmarshal !!map"},
		{"no device at all", "future: 1\n", "all configurations are empty", ""},
		{"an empty nvidia block", "nvidia: {}\n", "all configurations are empty", ""},
		{"a MIG profile without its size", "nvidia:\n  migProfileAllowlist:\n  - models: [A30]\n    profiles: [gb]\n", "invalid MIG profile", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseAsHAMiScheduler([]byte(tc.file))
			checkRule(t, "HAMi v2.10.0 scheduler", err, tc.hamiErr)
			checkRule(t, "mock-device-plugin v1.0.1", parseAsMockPlugin([]byte(tc.file)), tc.mockErr)
		})
	}
}

func checkRule(t *testing.T, reader string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s rejects it: %v", reader, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: err = %v, want one containing %q", reader, err, want)
	}
}
