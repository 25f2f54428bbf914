package render

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// chartDevicePlugin is the device plugin DaemonSet of helm's recorded
// rendering (testdata/hami-chart-2.10.0/README.md).
func chartDevicePlugin(t *testing.T) *appsv1.DaemonSet {
	t.Helper()
	for _, doc := range mustSplitYAMLDocs(t, chartRender(t)) {
		var ds appsv1.DaemonSet
		if err := yaml.Unmarshal([]byte(doc), &ds); err != nil {
			t.Fatal(err)
		}
		if ds.Kind == "DaemonSet" && ds.Name == HAMiDevicePluginObject {
			return &ds
		}
	}
	t.Fatalf("the recorded rendering has no DaemonSet %s", HAMiDevicePluginObject)
	return nil
}

func envOf(c *corev1.Container) map[string]string {
	out := map[string]string{}
	for _, e := range c.Env {
		out[e.Name] = e.Value
	}
	return out
}

func daemonSetContainer(t *testing.T, ds *appsv1.DaemonSet, name string) *corev1.Container {
	t.Helper()
	for i := range ds.Spec.Template.Spec.Containers {
		if c := &ds.Spec.Template.Spec.Containers[i]; c.Name == name {
			return c
		}
	}
	t.Fatalf("DaemonSet %s has no container %s", ds.Name, name)
	return nil
}

// What the chart makes of the lab's values, as helm rendered it: each
// container sees the mock library where its env says (the plugin through
// the driver-root mount of the lab's driver root, the monitor through its
// /hostvar mount of /var), no device node is handed out, and the plugin runs
// on the nodes the nvml-mock DaemonSet installs the library on.
func TestChartRunsTheDevicePluginAgainstTheMockLibrary(t *testing.T) {
	ds := chartDevicePlugin(t)
	spec := ds.Spec.Template.Spec
	mounts := map[string]string{}    // volume name → host path
	hostTypes := map[string]string{} // volume name → hostPath type
	for _, v := range spec.Volumes {
		if v.HostPath != nil {
			mounts[v.Name] = v.HostPath.Path
			if v.HostPath.Type != nil {
				hostTypes[v.Name] = string(*v.HostPath.Type)
			}
		}
	}
	inContainer := func(c *corev1.Container, dir string) string { // host path seen at dir
		for _, m := range c.VolumeMounts {
			if m.MountPath == dir {
				return mounts[m.Name]
			}
		}
		return ""
	}
	want := hamiDevicePluginFor(lab.Default())
	plugin := daemonSetContainer(t, ds, "device-plugin")
	env := envOf(plugin)
	for _, e := range want.ExtraEnvs {
		if env[e.Name] != e.Value {
			t.Errorf("device-plugin env %s=%q, want %q", e.Name, env[e.Name], e.Value)
		}
	}
	if env["NVIDIA_DRIVER_ROOT"] != NVMLMockDriverRoot || env["DEVICE_LIST_STRATEGY"] != "envvar" || env["PASS_DEVICE_SPECS"] != "false" {
		t.Errorf("device-plugin env %v: want NVIDIA_DRIVER_ROOT %s, DEVICE_LIST_STRATEGY envvar, PASS_DEVICE_SPECS false", env,
			NVMLMockDriverRoot)
	}
	if got := inContainer(plugin, hamiPluginDriverRoot); got != NVMLMockDriverRoot || hostTypes["driver-root"] != "Directory" {
		t.Errorf("device-plugin sees %q at %s (type %q), want %s, type Directory", got, hamiPluginDriverRoot, hostTypes["driver-root"],
			NVMLMockDriverRoot)
	}
	monitor := daemonSetContainer(t, ds, "vgpu-monitor")
	menv := envOf(monitor)
	for _, e := range want.Monitor.ExtraEnvs {
		if menv[e.Name] != e.Value {
			t.Errorf("vgpu-monitor env %s=%q, want %q", e.Name, menv[e.Name], e.Value)
		}
	}
	if got := inContainer(monitor, "/hostvar"); got != "/var" {
		t.Errorf("vgpu-monitor sees %q at /hostvar, want /var (its paths into the driver root depend on it)", got)
	}
	if spec.NodeSelector[gpus.LabelGPUNode] != gpus.LabelGPUOn {
		t.Errorf("device plugin nodeSelector %v, want %s=%s, where the nvml-mock DaemonSet installs the library", spec.NodeSelector,
			gpus.LabelGPUNode, gpus.LabelGPUOn)
	}
}
