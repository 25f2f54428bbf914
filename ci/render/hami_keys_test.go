package render

import (
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// hamiChartKeys are value paths that exist in chart hami 2.10.0
// (charts/hami/values.yaml at tag v2.10.0). A rendered key outside this list
// would be silently ignored by helm, as scheduler.kubeScheduler.imageTag is.
var hamiChartKeys = map[string]bool{
	"global.imageTag":                          true,
	"scheduler.leaderElect":                    true,
	"scheduler.kubeScheduler.image.registry":   true,
	"scheduler.kubeScheduler.image.repository": true,
	"scheduler.kubeScheduler.image.tag":        true,
	"scheduler.extender.extraArgs":             true,
	"devicePlugin.enabled":                     true,
	"devicePlugin.deviceSplitCount":            true,
	// values.yaml:390-393,400 and 331 (devicePlugin.monitor.extraEnvs);
	// extraEnvs is a list here, a leaf, as the template reads it.
	"devicePlugin.passDeviceSpecsEnabled": true,
	"devicePlugin.deviceListStrategy":     true,
	"devicePlugin.nvidiaDriverRoot":       true,
	"devicePlugin.extraEnvs":              true,
	"devicePlugin.monitor.extraEnvs":      true,
	"mockDevicePlugin.enabled":            true,
	"mockDevicePlugin.image.registry":     true,
	"mockDevicePlugin.image.repository":   true,
	"mockDevicePlugin.image.tag":          true,
	// values.yaml:556-557; templates/scheduler/device-configmap.yaml:11-12.
	"device-config.content": true,
}

// checkHAMiKeys fails on any leaf path not known to chart 2.10.0.
func checkHAMiKeys(doc []byte) error {
	var m map[string]any
	if err := yaml.Unmarshal(doc, &m); err != nil {
		return err
	}
	var unknown []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if mm, ok := v.(map[string]any); ok {
			for k, e := range mm {
				walk(strings.TrimPrefix(prefix+"."+k, "."), e)
			}
			return
		}
		if !hamiChartKeys[prefix] {
			unknown = append(unknown, prefix)
		}
	}
	walk("", m)
	sort.Strings(unknown)
	if len(unknown) > 0 {
		return fmt.Errorf("keys not in chart hami 2.10.0: %v", unknown)
	}
	return nil
}
