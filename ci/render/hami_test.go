package render

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestHAMiValuesFollowLab(t *testing.T) {
	for name, l := range testLabs(t) {
		for _, tn := range l.Tenants {
			v, err := HAMiValuesFor(l, tn.Name)
			if err != nil {
				t.Fatal(err)
			}
			ks := v.Scheduler.KubeScheduler.Image
			if ks.Registry != "registry.k8s.io" || ks.Repository != "kube-scheduler" || ks.Tag != l.Versions.Kubernetes {
				t.Errorf("%s/%s: kube-scheduler image %+v, want registry.k8s.io/kube-scheduler:%s", name, tn.Name, ks, l.Versions.Kubernetes)
			}
			if !slices.Contains(v.Scheduler.Extender.ExtraArgs, "--node-lock-timeout="+l.HAMi.NodeLockTimeout) {
				t.Errorf("%s/%s: extender args %v lack --node-lock-timeout=%s", name, tn.Name, v.Scheduler.Extender.ExtraArgs, l.HAMi.NodeLockTimeout)
			}
			if !v.DevicePlugin.Enabled || v.MockDevicePlugin.Enabled || v.Scheduler.LeaderElect {
				t.Errorf("%s/%s: want devicePlugin on, mock off, leaderElect false: %+v", name, tn.Name, v)
			}
			if v.DevicePlugin.DeviceSplitCount != l.HAMi.SplitCount || v.Global.ImageTag != l.Versions.HAMiImage {
				t.Errorf("%s/%s: split %d tag %q", name, tn.Name, v.DevicePlugin.DeviceSplitCount, v.Global.ImageTag)
			}
			// One device file for both backends: the chart gets the file the
			// local environment writes.
			dev, err := HAMiDeviceConfigYAML(l)
			if err != nil {
				t.Fatal(err)
			}
			if v.DeviceConfig.Content != string(dev) {
				t.Errorf("%s/%s: device-config.content =\n%s\nwant HAMiDeviceConfigYAML\n%s", name, tn.Name, v.DeviceConfig.Content, dev)
			}
		}
	}
	if _, err := HAMiValuesFor(testLabs(t)["default"], "nope"); err == nil {
		t.Error("unknown tenant: no error")
	}
}

// The env each container of the chart's DaemonSet gets names the driver root
// as that container sees it: the plugin through /driver-root, the monitor
// through /hostvar, the host's /var.
func TestHAMiDevicePluginEnvNamesTheDriverRoot(t *testing.T) {
	if "/var"+nvmlMockDriverRootInVar != NVMLMockDriverRoot {
		t.Fatalf("nvmlMockDriverRootInVar %q is not NVMLMockDriverRoot %q below /var", nvmlMockDriverRootInVar, NVMLMockDriverRoot)
	}
	dp := hamiDevicePluginFor(testLabs(t)["default"])
	for _, tc := range []struct {
		who  string
		env  []corev1.EnvVar
		root string
	}{
		{"device plugin", dp.ExtraEnvs, "/driver-root"},
		{"vGPU monitor", dp.Monitor.ExtraEnvs, "/hostvar/lib/nvml-mock/driver"},
	} {
		got := map[string]string{}
		for _, e := range tc.env {
			got[e.Name] = e.Value
		}
		want := map[string]string{"LD_LIBRARY_PATH": tc.root + "/usr/lib64", "MOCK_NVML_CONFIG": tc.root + "/config/config.yaml"}
		if !maps.Equal(got, want) {
			t.Errorf("%s env %v, want %v", tc.who, got, want)
		}
	}
	if dp.NvidiaDriverRoot != NVMLMockDriverRoot || dp.DeviceListStrategy != "envvar" || dp.PassDeviceSpecsEnabled {
		t.Errorf("device plugin %+v: want driver root %s, envvar strategy, no device specs", dp, NVMLMockDriverRoot)
	}
}
