package render

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// NVIDIA's mock NVML library (github.com/NVIDIA/k8s-test-infra,
// pkg/gpu/mocknvml) answers HAMi's device plugin and vGPU monitor on every
// worker in place of a driver. The pin is commit 0eeb2ee5, after tag v0.3.0:
// at the tag nvmlEventSetWait returned at once, which would spin HAMi's
// health loop on a core; 0eeb2ee5 honours the timeout (#535).
const (
	// NVMLMockName names the ConfigMap and the DaemonSet in every tenant.
	NVMLMockName = "gpu-lab-nvml-mock"
	// nvmlMockCommit is the pinned source.
	nvmlMockCommit = "0eeb2ee5"
	// NVMLMockImage is the image upstream publishes for that commit: its
	// workflow pushes ghcr.io/nvidia/nvml-mock on every push to main, tagged
	// sha-<short commit> (.github/workflows/nvml-mock-publish.yaml:12-22,53,61
	// @0eeb2ee5), built by deployments/nvml-mock/Dockerfile.
	NVMLMockImage = "ghcr.io/nvidia/nvml-mock:sha-0eeb2ee"
	// NVMLMockLibVersion is the version in the built library's file name
	// (pkg/gpu/mocknvml/Makefile:22-25@0eeb2ee5 LIB_VERSION, LIB_REALNAME
	// libnvidia-ml.so.$(LIB_VERSION)); the image holds it in
	// /usr/local/lib (deployments/nvml-mock/Dockerfile:41@0eeb2ee5).
	NVMLMockLibVersion = "550.163.01"
	// NVMLMockImageLibDir is where the image holds the library.
	NVMLMockImageLibDir = "/usr/local/lib"
	// NVMLMockDriverRoot is the driver root on each worker: under /var,
	// because HAMi's vGPU monitor sees the host only through its /hostvar
	// mount of /var (charts/hami/templates/device-plugin/
	// daemonsetnvidia.yaml:203-204,248-250@v2.10.0), and the path upstream's
	// own DaemonSet uses (deployments/nvml-mock/scripts/setup.sh:11-12@0eeb2ee5).
	NVMLMockDriverRoot = "/var/lib/nvml-mock/driver"
	// nvmlMockMaxCards is the library's device limit
	// (pkg/gpu/mocknvml/engine/device.go:37@0eeb2ee5 MaxDevices); the lab
	// file refuses more cards per worker (ci/lab's maxCardsPerWorker).
	nvmlMockMaxCards = 8
)

// nvmlMockLibDir and nvmlMockConfigFile are the layout the library expects
// under a driver root: the library in usr/lib64, its configuration in
// config/config.yaml (pkg/gpu/mocknvml/engine/config.go:161-162,197-200
// @0eeb2ee5, found through the library's own path when MOCK_NVML_CONFIG is
// unset; setup.sh:29,41-43 installs it so).
const (
	nvmlMockLibDir     = "usr/lib64"
	nvmlMockConfigFile = "config/config.yaml"
)

// nvmlMockConfig is the library's YAML configuration, the fields the lab
// sets (pkg/gpu/mocknvml/engine/config_types.go:18-40,192-235@0eeb2ee5).
// The device count is the length of devices (engine/config.go:94); every
// field left out takes the library's defaults (an A100's).
type nvmlMockConfig struct {
	Version string           `json:"version"`
	System  nvmlMockSystem   `json:"system"`
	Devices []nvmlMockDevice `json:"devices"`
}

// nvmlMockSystem is the configuration's system block; the values are those
// of upstream's own profiles (pkg/gpu/mocknvml/configs/
// mock-nvml-config-a100.yaml:10-15@0eeb2ee5), the library's version.
type nvmlMockSystem struct {
	DriverVersion    string `json:"driver_version"`
	NVMLVersion      string `json:"nvml_version"`
	CUDAVersion      string `json:"cuda_version"`
	CUDAVersionMajor int    `json:"cuda_version_major"`
	CUDAVersionMinor int    `json:"cuda_version_minor"`
}

// nvmlMockDevice is one card.
type nvmlMockDevice struct {
	Index       int            `json:"index"`
	UUID        string         `json:"uuid"`
	MinorNumber int            `json:"minor_number"`
	Name        string         `json:"name"`
	Memory      nvmlMockMemory `json:"memory"`
	PCI         nvmlMockPCI    `json:"pci"`
}

// nvmlMockMemory is a card's memory block.
type nvmlMockMemory struct {
	TotalBytes uint64 `json:"total_bytes"`
}

// nvmlMockPCI is a card's PCI block.
type nvmlMockPCI struct {
	BusID string `json:"bus_id"`
}

// nvmlMockConfigFor is one worker's configuration: its cards as the lab
// registers them (gpus.Devices), so HAMi's device plugin registers the same
// cards the local environment's registrar writes:
//   - name is the card type: the plugin registers the NVML name verbatim
//     when it starts with "NVIDIA" (HAMi pkg/device-plugin/nvidiadevice/
//     nvinternal/plugin/register.go:142,170-173,185@v2.10.0; the lab file
//     holds every type to that, lab.Validate);
//   - memory in bytes of the card's MiB: the plugin registers
//     total / 1024 / 1024 (register.go:124,148);
//   - the UUID the lab derives (gpus.CardUUID), the index and minor number
//     the card's position, a PCI bus ID per position in the form of
//     upstream's profiles (configs/mock-nvml-config-a100.yaml:316@0eeb2ee5).
func nvmlMockConfigFor(l *lab.Lab, tenant string, w lab.Worker) (*nvmlMockConfig, error) {
	devs := gpus.Devices(l, tenant, w)
	if len(devs) > nvmlMockMaxCards {
		return nil, fmt.Errorf("nvml-mock config of worker %s in tenant %s: %d cards, the mock NVML library serves at most %d", w.Name, tenant,
			len(devs), nvmlMockMaxCards)
	}
	c := &nvmlMockConfig{Version: "1.0", System: nvmlMockSystem{
		DriverVersion: NVMLMockLibVersion, NVMLVersion: "12." + NVMLMockLibVersion,
		CUDAVersion: "12.4", CUDAVersionMajor: 12, CUDAVersionMinor: 4,
	}}
	for _, d := range devs {
		c.Devices = append(c.Devices, nvmlMockDevice{
			Index: d.Index, UUID: d.ID, MinorNumber: d.Index, Name: d.Type,
			Memory: nvmlMockMemory{TotalBytes: uint64(d.Devmem) << 20},
			PCI:    nvmlMockPCI{BusID: fmt.Sprintf("0000:%02X:00.0", d.Index+1)},
		})
	}
	return c, nil
}

// nvmlMockConfigMap holds every worker's configuration of a tenant, one key
// per Node name (<node>.yaml), which the DaemonSet's pod picks by its own
// node.
func nvmlMockConfigMap(l *lab.Lab, tenant string) (*corev1.ConfigMap, error) {
	_, t := tenantIndex(l, tenant)
	if t == nil {
		return nil, fmt.Errorf("nvml-mock config of tenant %q: no such tenant in lab %q", tenant, l.Name)
	}
	data := map[string]string{}
	for _, w := range t.Workers {
		c, err := nvmlMockConfigFor(l, tenant, w)
		if err != nil {
			return nil, err
		}
		y, err := YAML(c)
		if err != nil {
			return nil, fmt.Errorf("nvml-mock config of worker %s in tenant %s: %w", w.Name, tenant, err)
		}
		data[l.NodeName(tenant, w.Name)+".yaml"] = string(y)
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: NVMLMockName, Namespace: HAMiNamespace, Labels: nvmlMockLabels(l)},
		Data:       data,
	}, nil
}

func nvmlMockLabels(l *lab.Lab) map[string]string {
	return map[string]string{"app.kubernetes.io/name": NVMLMockName, LabelLab: l.Name}
}

// nvmlMockInstall installs the library and the node's configuration under
// the driver root as upstream's setup.sh does (:29,41-43: the library under
// its versioned name, libnvidia-ml.so.1 and libnvidia-ml.so linked to it),
// each file written beside and renamed, so a plugin that has the old
// library mapped keeps it. A node without a key fails the pod, naming it.
func nvmlMockInstall() string {
	lib := "libnvidia-ml.so." + NVMLMockLibVersion
	return fmt.Sprintf(`set -eu
root=/host%[1]s
mkdir -p "$root/%[2]s" "$root/config"
cfg="/etc/nvml-mock/$NODE_NAME.yaml"
[ -f "$cfg" ] || { echo "ConfigMap %[3]s has no key $NODE_NAME.yaml: node $NODE_NAME is no GPU worker of this lab" >&2; exit 1; }
cp %[4]s/%[5]s "$root/%[2]s/.%[5]s.new" && mv -f "$root/%[2]s/.%[5]s.new" "$root/%[2]s/%[5]s"
ln -sfn %[5]s "$root/%[2]s/libnvidia-ml.so.1"
ln -sfn libnvidia-ml.so.1 "$root/%[2]s/libnvidia-ml.so"
cp "$cfg" "$root/config/.config.yaml.new" && mv -f "$root/config/.config.yaml.new" "$root/%[6]s"
echo "installed %[5]s and $cfg under %[1]s"
`, NVMLMockDriverRoot, nvmlMockLibDir, NVMLMockName, NVMLMockImageLibDir, lib, nvmlMockConfigFile)
}

// nvmlMockDaemonSet installs the library and the node's configuration on
// every node labelled gpu=on (the label HAMi's device plugin selects,
// charts/hami/values.yaml:419-420@v2.10.0) in an init container, then
// idles: a Ready pod means the node's driver root is complete, which the
// chart's DaemonSet needs before it starts (its driver-root hostPath has
// type Directory, daemonsetnvidia.yaml:232-236@v2.10.0). The pod template
// carries nothing of the ConfigMap's content: each pod reads its own
// node's key when it starts, a running worker's cards never change
// (lab.Changes refuses that), and a worker added to or removed from the
// tenant must not roll the other workers' pods (issue 42: a running lab
// changes only where the lab file changes it).
func nvmlMockDaemonSet(l *lab.Lab, image string) *appsv1.DaemonSet {
	podLabels := nvmlMockLabels(l)
	// HAMi's webhook leaves the pod alone, as it does the chart's own
	// device plugin pods (daemonsetnvidia.yaml:29@v2.10.0).
	podLabels["hami.io/webhook"] = "ignore"
	hostDir := corev1.HostPathDirectoryOrCreate
	root := int64(0)
	vols := []corev1.VolumeMount{{Name: "host", MountPath: "/host/var/lib/nvml-mock"},
		{Name: "config", MountPath: "/etc/nvml-mock", ReadOnly: true}}
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: NVMLMockName, Namespace: HAMiNamespace, Labels: nvmlMockLabels(l)},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": NVMLMockName}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					NodeSelector:      map[string]string{gpus.LabelGPUNode: gpus.LabelGPUOn},
					Tolerations:       []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					PriorityClassName: "system-node-critical",
					SecurityContext:   &corev1.PodSecurityContext{RunAsUser: &root},
					InitContainers: []corev1.Container{{
						Name: "install", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
						Command: []string{"/bin/sh", "-c", nvmlMockInstall()},
						Env: []corev1.EnvVar{{Name: "NODE_NAME",
							ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
						VolumeMounts: vols,
					}},
					Containers: []corev1.Container{{
						Name: "idle", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
						Command: []string{"sleep", "infinity"},
					}},
					Volumes: []corev1.Volume{
						{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/lib/nvml-mock", Type: &hostDir}}},
						{Name: "config",
							VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
								LocalObjectReference: corev1.LocalObjectReference{Name: NVMLMockName}}}},
					},
				},
			},
		},
	}
}

// NVMLMockObjects are a tenant's nvml-mock objects, in apply order.
func NVMLMockObjects(l *lab.Lab, tenant, image string) ([]any, error) {
	cm, err := nvmlMockConfigMap(l, tenant)
	if err != nil {
		return nil, err
	}
	return []any{cm, nvmlMockDaemonSet(l, image)}, nil
}

// HAMiDevicePluginObject is the chart's DaemonSet of the device plugin and
// vGPU monitor for release "hami" (charts/hami/templates/_helpers.tpl:47-49
// @v2.10.0 "<fullname>-device-plugin"; the recorded rendering holds it).
const HAMiDevicePluginObject = HAMiRelease + "-device-plugin"
