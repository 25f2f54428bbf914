package render

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// nvmlMockKeys are the configuration's paths the library reads, from its
// YAML types (NVIDIA/k8s-test-infra pkg/gpu/mocknvml/engine/
// config_types.go@0eeb2ee5: YAMLConfig :18-30, SystemConfig :33-40,
// DeviceOverride :192-198 with DeviceConfig inlined, name :45, memory :61
// → MemoryConfig :215-216, pci :64 → PCIConfig :231-234). A path outside
// them would be ignored by the library's YAML decoder.
var nvmlMockKeys = map[string]bool{
	"version":                      true,
	"system.driver_version":        true,
	"system.nvml_version":          true,
	"system.cuda_version":          true,
	"system.cuda_version_major":    true,
	"system.cuda_version_minor":    true,
	"devices[].index":              true,
	"devices[].uuid":               true,
	"devices[].minor_number":       true,
	"devices[].name":               true,
	"devices[].memory.total_bytes": true,
	"devices[].pci.bus_id":         true,
}

// checkNVMLMockConfigMap checks every key of the ConfigMap is a lab node's
// file whose paths the library reads, with at most MaxDevices devices.
func checkNVMLMockConfigMap(cm *corev1.ConfigMap) error {
	if len(cm.Data) == 0 {
		return fmt.Errorf("ConfigMap %s: no worker's configuration", cm.Name)
	}
	for key, doc := range cm.Data {
		if !strings.HasSuffix(key, ".yaml") {
			return fmt.Errorf("ConfigMap %s: key %q is no <node>.yaml", cm.Name, key)
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			return fmt.Errorf("ConfigMap %s key %s: %w", cm.Name, key, err)
		}
		var unknown []string
		var walk func(prefix string, v any)
		walk = func(prefix string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					walk(strings.TrimPrefix(prefix+"."+k, "."), e)
				}
			case []any:
				for _, e := range x {
					walk(prefix+"[]", e)
				}
			default:
				if !nvmlMockKeys[prefix] {
					unknown = append(unknown, prefix)
				}
			}
		}
		walk("", m)
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return fmt.Errorf("ConfigMap %s key %s: paths the mock NVML library does not read: %v", cm.Name, key, unknown)
		}
		if devs, _ := m["devices"].([]any); len(devs) == 0 || len(devs) > nvmlMockMaxCards {
			return fmt.Errorf("ConfigMap %s key %s: %d devices, want 1-%d", cm.Name, key, len(devs), nvmlMockMaxCards)
		}
	}
	return nil
}

// Each card of a worker is one device of its configuration, as HAMi's
// device plugin will register it: the lab's UUID, the type as NVML name,
// the MiB in bytes, index and minor number its position.
func TestNVMLMockConfigIsTheWorkersCards(t *testing.T) {
	l := lab.Default()
	for _, tc := range []struct {
		tenant, worker string
		want           []nvmlMockDevice
	}{
		{"tenant-a", "worker", []nvmlMockDevice{
			{Index: 0, UUID: gpus.CardUUID("gpu-lab", "tenant-a", "worker", 0), MinorNumber: 0, Name: "NVIDIA-A100-SXM4-80GB",
				Memory: nvmlMockMemory{TotalBytes: 81920 * 1024 * 1024}, PCI: nvmlMockPCI{BusID: "0000:01:00.0"}},
		}},
		{"tenant-b", "worker", []nvmlMockDevice{
			{Index: 0, UUID: gpus.CardUUID("gpu-lab", "tenant-b", "worker", 0), MinorNumber: 0, Name: "NVIDIA-L4",
				Memory: nvmlMockMemory{TotalBytes: 24576 * 1024 * 1024}, PCI: nvmlMockPCI{BusID: "0000:01:00.0"}},
			{Index: 1, UUID: gpus.CardUUID("gpu-lab", "tenant-b", "worker", 1), MinorNumber: 1, Name: "NVIDIA-L4",
				Memory: nvmlMockMemory{TotalBytes: 24576 * 1024 * 1024}, PCI: nvmlMockPCI{BusID: "0000:02:00.0"}},
		}},
	} {
		w := l.Tenant(tc.tenant).Workers[0]
		c, err := nvmlMockConfigFor(l, tc.tenant, w)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(c.Devices) != fmt.Sprint(tc.want) {
			t.Errorf("%s/%s devices\n%+v\nwant\n%+v", tc.tenant, tc.worker, c.Devices, tc.want)
		}
		if c.System.DriverVersion != NVMLMockLibVersion {
			t.Errorf("%s/%s driver version %q, want the library's %q", tc.tenant, tc.worker, c.System.DriverVersion, NVMLMockLibVersion)
		}
	}
	// A worker past the library's limit (Validate refuses such a lab file;
	// the renderer does not trust that it ran).
	big := lab.Worker{Name: "big", GPUs: []lab.GPUGroup{{Model: "L4", Count: nvmlMockMaxCards + 1}}}
	if _, err := nvmlMockConfigFor(l, "tenant-a", big); err == nil || !strings.Contains(err.Error(), "at most 8") {
		t.Errorf("9 cards: %v, want an error naming the limit", err)
	}
}

// One ConfigMap key per worker Node; the DaemonSet runs where HAMi's device
// plugin runs (gpu=on), installs under the driver root the chart's values
// name, and picks the key of its own node.
func TestNVMLMockObjects(t *testing.T) {
	l := testLabs(t)["three-tenants"]
	for _, tn := range l.Tenants {
		objs, err := NVMLMockObjects(l, tn.Name, "example.org/nvml-mock:x")
		if err != nil {
			t.Fatal(err)
		}
		cm := objs[0].(*corev1.ConfigMap)
		var keys, want []string
		for k := range cm.Data {
			keys = append(keys, k)
		}
		for _, w := range tn.Workers {
			want = append(want, l.NodeName(tn.Name, w.Name)+".yaml")
		}
		sort.Strings(keys)
		sort.Strings(want)
		if strings.Join(keys, " ") != strings.Join(want, " ") {
			t.Errorf("%s: ConfigMap keys %v, want %v", tn.Name, keys, want)
		}
		if err := checkNVMLMockConfigMap(cm); err != nil {
			t.Error(err)
		}
		ds := nvmlMockDaemonSet(l, "example.org/nvml-mock:x")
		spec := ds.Spec.Template.Spec
		if spec.NodeSelector[gpus.LabelGPUNode] != gpus.LabelGPUOn || len(spec.InitContainers) != 1 ||
			spec.InitContainers[0].Image != "example.org/nvml-mock:x" {
			t.Errorf("%s: DaemonSet pod spec %+v", tn.Name, spec)
		}
		script := strings.Join(spec.InitContainers[0].Command, " ")
		for _, s := range []string{"root=/host" + hamiDevicePluginFor(l).NvidiaDriverRoot, "/usr/local/lib/libnvidia-ml.so.550.163.01",
			"libnvidia-ml.so.1", "/etc/nvml-mock/$NODE_NAME.yaml", "config/config.yaml"} {
			if !strings.Contains(script, s) {
				t.Errorf("%s: install script lacks %q:\n%s", tn.Name, s, script)
			}
		}
	}
	// A worker added to a tenant adds its key to the ConfigMap and leaves
	// the pod template as it is: the running workers' pods are not rolled.
	seed, grown := lab.Default(), lab.Default()
	grown.Tenants[0].Workers = append(grown.Tenants[0].Workers, lab.Worker{Name: "worker2", GPUs: grown.Tenants[0].Workers[0].GPUs})
	before, err := NVMLMockObjects(seed, seed.Tenants[0].Name, "i")
	if err != nil {
		t.Fatal(err)
	}
	after, err := NVMLMockObjects(grown, grown.Tenants[0].Name, "i")
	if err != nil {
		t.Fatal(err)
	}
	if x, y := before[1].(*appsv1.DaemonSet).Spec.Template, after[1].(*appsv1.DaemonSet).Spec.Template; !reflect.DeepEqual(x, y) {
		t.Errorf("a worker added changed the pod template:\n%+v\n%+v", x, y)
	}
	if x, y := before[0].(*corev1.ConfigMap).Data, after[0].(*corev1.ConfigMap).Data; len(y) != len(x)+1 {
		t.Errorf("ConfigMap keys %d after a worker added, want %d", len(y), len(x)+1)
	}
}
