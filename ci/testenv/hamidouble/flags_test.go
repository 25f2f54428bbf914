package hamidouble

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const chartDeviceConfig = "testdata/hami-v2.10.0-device-config.yaml"

// chartArgs are the extender's arguments as HAMi chart 2.10.0's
// templates/scheduler/deployment.yaml renders them with the admission
// webhook on and leaderElect false, plus the lab's extraArgs
// (ci/render golden hami-values.yaml) and the QPS flags issue 9 measures.
var chartArgs = []string{
	"--http_bind=0.0.0.0:443", "--cert_file=/tls/tls.crt", "--key_file=/tls/tls.key",
	"--scheduler-name=hami-scheduler", "--metrics-bind-address=:9395",
	"--node-scheduler-policy=binpack", "--gpu-scheduler-policy=spread",
	"--force-overwrite-default-scheduler=true", "--device-config-file=" + chartDeviceConfig,
	"--leader-elect=false", "--leader-elect-resource-name=hami-scheduler", "--leader-elect-resource-namespace=kube-system",
	"--debug", "-v=4", "--node-lock-timeout=5m", "--kube-qps", "20", "--kube-burst", "40",
}

func TestConfigFromChartArgs(t *testing.T) {
	t.Parallel()
	c, err := configFromArgs(chartArgs)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPBind != "0.0.0.0:443" || c.CertFile != "/tls/tls.crt" || c.KeyFile != "/tls/tls.key" ||
		c.SchedulerName != "hami-scheduler" || c.MetricsBindAddress != ":9395" || c.NodePolicy != "binpack" ||
		c.GPUPolicy != "spread" || c.ForceOverwriteDefaultScheduler == nil || !*c.ForceOverwriteDefaultScheduler ||
		c.NodeLockTimeout != 5*time.Minute || c.KubeQPS != 20 || c.KubeBurst != 40 || c.LegacyMetrics {
		t.Errorf("config = %+v", c)
	}
	if c.DeviceSplitCount != 10 || c.DefaultGPUNum != 1 || c.DefaultMemory != 0 || c.DefaultCores != 0 || c.MemoryFactor != 1 {
		t.Errorf("device config = split %d gpu %d mem %d cores %d factor %d, want the chart's 10/1/0/0/1",
			c.DeviceSplitCount, c.DefaultGPUNum, c.DefaultMemory, c.DefaultCores, c.MemoryFactor)
	}
	want := []string{"--leader-elect=false", "--leader-elect-resource-name=hami-scheduler",
		"--leader-elect-resource-namespace=kube-system", "--debug=true", "--v=4"}
	got := slices.Clone(c.Unmodelled)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("unmodelled flags %q, want %q", got, want)
	}
}

// TestConfigFromArgsDefaults: the flag defaults of cmd/scheduler/main.go@v2.10.0.
func TestConfigFromArgsDefaults(t *testing.T) {
	t.Parallel()
	c, err := configFromArgs([]string{"--device-config-file", chartDeviceConfig})
	if err != nil {
		t.Fatal(err)
	}
	if c.KubeQPS != 5 || c.KubeBurst != 10 || c.NodeLockTimeout != 5*time.Minute || c.HTTPBind != "127.0.0.1:8080" ||
		c.MetricsBindAddress != ":9395" || c.GPUPolicy != "spread" || c.NodePolicy != "binpack" ||
		!*c.ForceOverwriteDefaultScheduler || c.LegacyMetrics || c.SchedulerName != "" || len(c.Unmodelled) != 0 {
		t.Errorf("defaults = %+v", c)
	}
	c, err = configFromArgs([]string{"--device-config-file", chartDeviceConfig, "--legacy-metrics=true", "--v=2", "-v", "3"})
	if err != nil || !c.LegacyMetrics || !slices.Contains(c.Unmodelled, "--v=3") {
		t.Errorf("legacy metrics and -v forms: %+v, %v", c, err)
	}
}

// TestConfigFromArgsRejects: what HAMi's cobra/pflag parser or its start-up
// refuses, the double refuses, naming the culprit.
func TestConfigFromArgsRejects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	otherNames := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(otherNames, []byte("nvidia:\n  resourceCountName: example.com/gpu\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	noNvidia := filepath.Join(dir, "none.yaml")
	if err := os.WriteFile(noNvidia, []byte("cambricon:\n  resourceCountName: cambricon.com/vmlu\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dc := "--device-config-file=" + chartDeviceConfig
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{dc, "--kube-qps-typo=1"}, "unknown flag: --kube-qps-typo"},
		{"single-dash long flag", []string{dc, "-debug"}, "unknown shorthand flag: 'd' in -debug"},
		{"wrong type", []string{dc, "--kube-qps=fast"}, "--kube-qps"},
		{"bad duration", []string{dc, "--node-lock-timeout=5"}, "--node-lock-timeout"},
		{"bad verbosity", []string{dc, "-v=high"}, "-v"},
		{"positional argument", []string{dc, "version"}, `unknown command "version"`},
		{"no device config", []string{"--kube-qps=20"}, "--device-config-file is required"},
		{"missing device config", []string{"--device-config-file=" + filepath.Join(dir, "absent.yaml")}, "absent.yaml"},
		{"foreign resource name", []string{"--device-config-file=" + otherNames}, "nvidia.resourceCountName"},
		{"no nvidia section", []string{"--device-config-file=" + noNvidia}, "no nvidia section"},
		{"zero burst", []string{dc, "--kube-burst=0"}, "--kube-burst=0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := configFromArgs(tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), Banner) {
				t.Errorf("ConfigFromArgs(%q) error %v, want one naming %q", tc.args, err, tc.want)
			}
		})
	}
}

// TestDeviceConfigDefaultsReachFilter: defaultMemory and defaultCores from
// the device config shape a pod's request as HAMi's GenerateResourceRequests does.
func TestDeviceConfigDefaultsReachFilter(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{DefaultMemory: 30000, DefaultCores: 20})
	p := e.gpuPod("p", nodeA, limits("nvidia.com/gpu", "1"), nil)
	if _, errText := e.schedule(p, nodeA); errText != "" {
		t.Fatal(errText)
	}
	if got, want := e.pod("p").Annotations["hami.io/vgpu-devices-allocated"], e.uuid(nodeA, 0)+",NVIDIA,30000,20:;"; got != want {
		t.Errorf("allocation %q, want %q", got, want)
	}
}
