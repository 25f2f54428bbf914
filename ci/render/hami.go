package render

import (
	"fmt"

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

// HAMiDevicePlugin is values.devicePlugin. deviceSplitCount also feeds the
// scheduler's device config, so it matters with the plugin disabled.
type HAMiDevicePlugin struct {
	Enabled          bool `json:"enabled"`
	DeviceSplitCount int  `json:"deviceSplitCount"`
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
// HAMi is installed into, from a registry this lab cannot reach). Neither
// device plugin runs: the real one needs GPUs, and the mock one (v1.0.1)
// would exit on the chart's own device file (HAMiDeviceConfigYAML says why)
// and cannot advertise more than about 120,000 MB per worker; the GPU
// registrar writes the resources it would advertise on each Node instead
// (gpus.Advertised). The scheduler reads the lab's device file, the one the
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
		DevicePlugin:     HAMiDevicePlugin{Enabled: false, DeviceSplitCount: l.HAMi.SplitCount},
		MockDevicePlugin: HAMiMockDevicePlugin{Enabled: false},
		DeviceConfig:     HAMiDeviceConfigValue{Content: string(dev)},
	}, nil
}
