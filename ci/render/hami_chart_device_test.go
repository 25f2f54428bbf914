package render

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// kindsAndNames lists "Kind/name" of every document of a rendering.
func kindsAndNames(t *testing.T, rendering []byte) []string {
	t.Helper()
	var out []string
	for _, doc := range mustSplitYAMLDocs(t, rendering) {
		var m struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		if m.Kind != "" {
			out = append(out, m.Kind+"/"+m.Metadata.Name)
		}
	}
	return out
}

// helm's real rendering of chart 2.10.0 with the lab's values puts the lab's
// device file, byte for byte, where HAMi's extender reads it, and renders
// the real device plugin, not the mock one; with the values before (mock
// plugin on, no content) the same chart rendered the mock plugin's
// DaemonSet and its own file.
func TestChartInstallsTheLabDeviceFileAndTheRealDevicePlugin(t *testing.T) {
	want, err := HAMiDeviceConfigYAML(lab.Default())
	if err != nil {
		t.Fatal(err)
	}
	rendering := chartRender(t)
	// The template's block scalar is "|-" (device-configmap.yaml:10): the
	// file's final newline is chomped, nothing else changes.
	if got := string(chartDeviceFile(t, rendering)); got != strings.TrimSuffix(string(want), "\n") {
		t.Errorf("the chart's ConfigMap %s-device holds\n%s\nwant the lab's device file\n%s", HAMiSchedulerObject, got, want)
	}

	// The extender reads that ConfigMap's key at the path it is given.
	_, d := chartObjects(t, rendering)
	c := container(t, d, "vgpu-scheduler-extender")
	var path string
	for _, a := range c.Command {
		if p, ok := strings.CutPrefix(a, "--device-config-file="); ok {
			path = p
		}
	}
	var volume string
	for _, m := range c.VolumeMounts {
		if m.MountPath == path && m.SubPath == "device-config.yaml" {
			volume = m.Name
		}
	}
	var fromCM string
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == volume && v.ConfigMap != nil {
			fromCM = v.ConfigMap.Name
		}
	}
	if path == "" || fromCM != HAMiSchedulerObject+"-device" {
		t.Errorf("extender --device-config-file=%q mounted from volume %q of ConfigMap %q, want ConfigMap %s-device key device-config.yaml",
			path, volume, fromCM, HAMiSchedulerObject)
	}

	objs := kindsAndNames(t, rendering)
	if !slices.Contains(objs, "DaemonSet/"+HAMiDevicePluginObject) || slices.Contains(objs, "DaemonSet/hami-mock-device-plugin") {
		t.Errorf("the lab's rendering has %v: want DaemonSet/%s and no mock device plugin", objs, HAMiDevicePluginObject)
	}
	if before := kindsAndNames(t, chartDefaultRender(t)); !slices.Contains(before, "DaemonSet/hami-mock-device-plugin") {
		t.Errorf("the rendering with the mock plugin enabled has no DaemonSet/hami-mock-device-plugin (%v): the recordings are mixed up", before)
	}
}
