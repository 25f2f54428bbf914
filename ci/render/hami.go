package render

import (
	"fmt"
	"path"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// HAMi chart settings. The keys below exist in chart hami 2.10.0
// (charts/hami/values.yaml at tag v2.10.0); in particular the
// kube-scheduler tag is scheduler.kubeScheduler.image.tag (the older
// scheduler.kubeScheduler.imageTag is silently ignored since chart 2.7).
const (
	HAMiRelease   = "hami"
	HAMiNamespace = "kube-system"
	HAMiChartName = "hami"
	HAMiChartRepo = "https://project-hami.github.io/HAMi/"
)

// HAMiValues is the helm values file of one tenant's HAMi install.
type HAMiValues struct {
	Global           HAMiGlobal           `json:"global"`
	Scheduler        HAMiScheduler        `json:"scheduler"`
	DevicePlugin     HAMiDevicePlugin     `json:"devicePlugin"`
	MockDevicePlugin HAMiMockDevicePlugin `json:"mockDevicePlugin"`
	// DeviceConfig is the device file HAMi's scheduler reads: the lab's
	// (HAMiDeviceConfigYAML), the same file the local environment writes.
	DeviceConfig HAMiDeviceConfigValue `json:"device-config"`
}

// HAMiDeviceConfigValue is values."device-config". Chart 2.10.0 puts a
// non-empty content verbatim into ConfigMap hami-scheduler-device, key
// device-config.yaml, instead of its own file
// (charts/hami/templates/scheduler/device-configmap.yaml:10-12 at v2.10.0;
// the value is declared in charts/hami/values.yaml:556-557, default "").
type HAMiDeviceConfigValue struct {
	Content string `json:"content"`
}

// HAMiGlobal is values.global.
type HAMiGlobal struct {
	ImageTag string `json:"imageTag"`
}

// HAMiScheduler is values.scheduler.
type HAMiScheduler struct {
	// LeaderElect is false: one scheduler replica per tenant, and no lease
	// round-trip before the extender serves (as HAMi's own kind deploy).
	LeaderElect   bool              `json:"leaderElect"`
	KubeScheduler HAMiKubeScheduler `json:"kubeScheduler"`
	Extender      hamiExtender      `json:"extender"`
}

// HAMiKubeScheduler is values.scheduler.kubeScheduler.
type HAMiKubeScheduler struct {
	Image HelmImage `json:"image"`
}

// hamiExtender is values.scheduler.extender.
type hamiExtender struct {
	ExtraArgs []string `json:"extraArgs"`
}

// HelmImage is the chart's image block; empty fields keep the chart default.
type HelmImage struct {
	Registry   string `json:"registry,omitempty"`
	Repository string `json:"repository,omitempty"`
	Tag        string `json:"tag,omitempty"`
}

// HAMiDevicePlugin is values.devicePlugin (charts/hami/values.yaml:276-435
// @v2.10.0): the chart's real NVIDIA device plugin and vGPU monitor, run
// against the mock NVML library (nvmlmock.go). deviceSplitCount also feeds
// the scheduler's device config.
type HAMiDevicePlugin struct {
	Enabled          bool `json:"enabled"`
	DeviceSplitCount int  `json:"deviceSplitCount"`
	// NvidiaDriverRoot becomes NVIDIA_DRIVER_ROOT and a hostPath (type
	// Directory) mounted at /driver-root (daemonsetnvidia.yaml:101-104,
	// 150-156,232-236@v2.10.0).
	NvidiaDriverRoot string `json:"nvidiaDriverRoot"`
	// PassDeviceSpecsEnabled and DeviceListStrategy are the chart's defaults
	// (values.yaml:390-391), set so the values file says why no
	// /dev/nvidia* is needed: with device specs off and the envvar strategy
	// Allocate names no device node (HAMi pkg/device-plugin/nvidiadevice/
	// nvinternal/plugin/server.go:937-942; rm/nvml_devices.go:92-97 would
	// name /dev/nvidia<minor>).
	PassDeviceSpecsEnabled bool   `json:"passDeviceSpecsEnabled"`
	DeviceListStrategy     string `json:"deviceListStrategy"`
	// ExtraEnvs is a list although the chart's default is {} (values.yaml
	// :400): the template renders it with toYaml into the container's env
	// list (daemonsetnvidia.yaml:125-127), and helm keeps the list with a
	// "cannot overwrite table with non table" warning.
	ExtraEnvs []corev1.EnvVar `json:"extraEnvs"`
	Monitor   HAMiMonitor     `json:"monitor"`
}

// HAMiMonitor is values.devicePlugin.monitor; its extraEnvs render like the
// plugin's (values.yaml:331, daemonsetnvidia.yaml:185-187@v2.10.0).
type HAMiMonitor struct {
	ExtraEnvs []corev1.EnvVar `json:"extraEnvs"`
}

// HAMiMockDevicePlugin is values.mockDevicePlugin. The lab sets only
// enabled: false (the chart's default, values.yaml:437-438 at v2.10.0),
// explicitly, so the values file says the plugin is off on purpose.
type HAMiMockDevicePlugin struct {
	Enabled bool      `json:"enabled"`
	Image   HelmImage `json:"image,omitzero"`
}

// HAMiValuesFor returns the HAMi values of a tenant. The kube-scheduler image
// matches the tenant version (the chart's default would follow the cluster
// HAMi is installed into, from a registry this lab cannot reach). HAMi's own
// device plugin and vGPU monitor run on every worker labelled gpu=on
// against NVIDIA's mock NVML library (hamiDevicePluginFor); the mock device
// plugin stays off. The scheduler reads the lab's device file, the one the
// local environment writes. The node lock timeout goes through the
// extender's --node-lock-timeout flag: in v2.10 the flag's default overrides
// the chart's nodeLockExpire (HAMi v2.10.0 cmd/scheduler/main.go:79,114
// replaces the HAMI_NODELOCK_EXPIRE of pkg/util/nodelock/nodelock.go:117).
func HAMiValuesFor(l *lab.Lab, tenant string) (*HAMiValues, error) {
	if _, t := tenantIndex(l, tenant); t == nil {
		return nil, fmt.Errorf("hami values for tenant %q: no such tenant in lab %q", tenant, l.Name)
	}
	dev, err := HAMiDeviceConfigYAML(l)
	if err != nil {
		return nil, fmt.Errorf("hami values for tenant %q: device config: %w", tenant, err)
	}
	return &HAMiValues{
		Global: HAMiGlobal{ImageTag: l.Versions.HAMiImage},
		Scheduler: HAMiScheduler{
			LeaderElect: false,
			KubeScheduler: HAMiKubeScheduler{Image: HelmImage{
				Registry: "registry.k8s.io", Repository: "kube-scheduler", Tag: l.Versions.KubeSchedulerTag(),
			}},
			Extender: hamiExtender{ExtraArgs: hamiExtraArgs(l)},
		},
		DevicePlugin:     hamiDevicePluginFor(l),
		MockDevicePlugin: HAMiMockDevicePlugin{Enabled: false},
		DeviceConfig:     HAMiDeviceConfigValue{Content: string(dev)},
	}, nil
}

// The paths at which each container of the chart's DaemonSet sees the mock
// library's driver root: the plugin at /driver-root (daemonsetnvidia.yaml
// :151-155@v2.10.0), the monitor, which has no such mount, through /hostvar,
// the host's /var (:203-204,248-250).
const (
	hamiPluginDriverRoot  = "/driver-root"
	hamiMonitorDriverRoot = "/hostvar" + nvmlMockDriverRootInVar
	// nvmlMockDriverRootInVar is NVMLMockDriverRoot below /var (a test
	// holds the two together).
	nvmlMockDriverRootInVar = "/lib/nvml-mock/driver"
)

// hamiDevicePluginFor is values.devicePlugin. Both containers load NVML
// with go-nvml's dlopen of libnvidia-ml.so.1 by soname, so LD_LIBRARY_PATH
// names the library's directory (without it the plugin finds no NVML and
// exits: fail-on-init-error defaults to true, HAMi cmd/device-plugin/
// nvidia/main.go:91-96@v2.10.0). MOCK_NVML_CONFIG names the configuration
// outright (k8s-test-infra pkg/gpu/mocknvml/engine/config.go:65-70
// @0eeb2ee5), rather than leaving the library to find it from its own path.
func hamiDevicePluginFor(l *lab.Lab) HAMiDevicePlugin {
	env := func(root string) []corev1.EnvVar {
		return []corev1.EnvVar{
			{Name: "LD_LIBRARY_PATH", Value: path.Join(root, nvmlMockLibDir)},
			{Name: "MOCK_NVML_CONFIG", Value: path.Join(root, nvmlMockConfigFile)},
		}
	}
	return HAMiDevicePlugin{
		Enabled:            true,
		DeviceSplitCount:   l.HAMi.SplitCount,
		NvidiaDriverRoot:   NVMLMockDriverRoot,
		DeviceListStrategy: "envvar",
		ExtraEnvs:          env(hamiPluginDriverRoot),
		Monitor:            HAMiMonitor{ExtraEnvs: env(hamiMonitorDriverRoot)},
	}
}
