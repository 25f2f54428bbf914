package render

import (
	"fmt"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// HAMi chart settings. The keys below exist in chart hami 2.10.0
// (charts/hami/values.yaml at tag v2.10.0, hami.md §4); in particular the
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
	Extender      HAMiExtender      `json:"extender"`
}

// HAMiKubeScheduler is values.scheduler.kubeScheduler.
type HAMiKubeScheduler struct {
	Image HelmImage `json:"image"`
}

// HAMiExtender is values.scheduler.extender.
type HAMiExtender struct {
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

// HAMiMockDevicePlugin is values.mockDevicePlugin.
type HAMiMockDevicePlugin struct {
	Enabled bool      `json:"enabled"`
	Image   HelmImage `json:"image"`
}

// HAMiValuesFor returns the HAMi values of a tenant. The kube-scheduler image
// matches the tenant version (the chart's default would follow the cluster
// HAMi is installed into, from a registry this lab cannot reach); the real
// device plugin is off (there are no GPUs) and the mock plugin advertises the
// registered cards' memory and cores. The node lock timeout goes through the
// extender's --node-lock-timeout flag: in v2.10 the flag's default overrides
// the chart's nodeLockExpire (hami.md §5).
func HAMiValuesFor(l *lab.Lab, tenant string) (*HAMiValues, error) {
	if _, t := tenantIndex(l, tenant); t == nil {
		return nil, fmt.Errorf("hami values for tenant %q: no such tenant in lab %q", tenant, l.Name)
	}
	return &HAMiValues{
		Global: HAMiGlobal{ImageTag: l.Versions.HAMiImage},
		Scheduler: HAMiScheduler{
			LeaderElect: false,
			KubeScheduler: HAMiKubeScheduler{Image: HelmImage{
				Registry: "registry.k8s.io", Repository: "kube-scheduler", Tag: l.Versions.KubeSchedulerTag(),
			}},
			Extender: HAMiExtender{ExtraArgs: hamiExtraArgs(l)},
		},
		DevicePlugin: HAMiDevicePlugin{Enabled: false, DeviceSplitCount: l.HAMi.SplitCount},
		MockDevicePlugin: HAMiMockDevicePlugin{
			Enabled: true,
			Image:   HelmImage{Tag: l.Versions.HAMiMockDevicePlugin},
		},
	}, nil
}
