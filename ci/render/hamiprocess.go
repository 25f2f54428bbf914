package render

import (
	"fmt"
	"strconv"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// HAMiPlace is where the two programs of HAMi's scheduler pod run: its
// kube-scheduler and its scheduler extender ("vgpu-scheduler-extender").
// The real lab runs them in the chart's Deployment (ChartPlace); the local
// test environment runs them as processes on loopback. Everything else in
// their configuration comes from the lab, through the same functions, so
// both backends run HAMi's scheduler the same way.
type HAMiPlace struct {
	// HTTPBind is the extender's --http_bind (webhook, filter, bind).
	HTTPBind string
	// CertFile and KeyFile are the extender's serving certificate.
	CertFile, KeyFile string
	// MetricsBind is the extender's --metrics-bind-address.
	MetricsBind string
	// DeviceConfigFile is the extender's --device-config-file.
	DeviceConfigFile string
	// ExtenderURL is where kube-scheduler calls the extender.
	ExtenderURL string
	// Kubeconfig is kube-scheduler's kubeconfig; empty means in-cluster.
	Kubeconfig string
	// PodName is the POD_NAME the extender gets. The chart's pod has it from
	// its own metadata (empty here means that); a process names itself.
	PodName string
	// DefaultProfile adds kube-scheduler's default-scheduler profile, for a
	// kube-scheduler that is also the cluster's only scheduler (the local
	// environment; in the real lab the tenant has its own).
	DefaultProfile bool
}

// ChartPlace is where HAMi chart 2.10.0 runs the extender and kube-scheduler
// with the lab's values (admission webhook on): the flags of
// charts/hami/templates/scheduler/deployment.yaml, the extender URL of
// templates/scheduler/configmap.yaml and the metrics address of values.yaml
// (scheduler.metricsBindAddress), all at tag v2.10.0.
func ChartPlace() HAMiPlace {
	return HAMiPlace{
		HTTPBind:         "0.0.0.0:443",
		CertFile:         "/tls/tls.crt",
		KeyFile:          "/tls/tls.key",
		MetricsBind:      ":9395",
		DeviceConfigFile: "/device-config.yaml",
		ExtenderURL:      "https://127.0.0.1:443",
	}
}

// hamiExtraArgs are the lab's additions to the extender's command line, the
// chart's scheduler.extender.extraArgs (its default is --debug -v=4). Flags
// as HAMi v2.10.0 defines them in cmd/scheduler/main.go: --node-lock-timeout
// (default 5m, main.go:79; main.go:114 assigns it to nodelock.NodeLockTimeout,
// replacing what the chart's HAMI_NODELOCK_EXPIRE set, pkg/util/nodelock/nodelock.go:117),
// --kube-qps (default 5) and --kube-burst (default 10).
func hamiExtraArgs(l *lab.Lab) []string {
	return []string{
		"--debug", "-v=4",
		"--node-lock-timeout=" + l.HAMi.NodeLockTimeout,
		"--kube-qps=" + strconv.Itoa(l.HAMi.KubeQPS),
		"--kube-burst=" + strconv.Itoa(l.HAMi.KubeBurst),
	}
}

// HAMiExtenderArgs is the extender's command line (after the program name)
// as chart 2.10.0 renders it from HAMiValuesFor, with the addresses and
// files of place: the order and values of the command in
// charts/hami/templates/scheduler/deployment.yaml at v2.10.0 with the admission
// webhook on, leader election off, no node label selector, no legacy
// metrics, then the lab's extraArgs. A test holds it to `helm template`'s
// output.
func HAMiExtenderArgs(l *lab.Lab, p HAMiPlace) ([]string, error) {
	if p.HTTPBind == "" || p.CertFile == "" || p.KeyFile == "" || p.MetricsBind == "" || p.DeviceConfigFile == "" {
		return nil, fmt.Errorf("HAMi extender arguments: place %+v lacks an address or file", p)
	}
	args := []string{
		"--http_bind=" + p.HTTPBind,
		"--cert_file=" + p.CertFile,
		"--key_file=" + p.KeyFile,
		"--scheduler-name=" + gpus.SchedulerName,
		"--metrics-bind-address=" + p.MetricsBind,
		"--node-scheduler-policy=" + HAMiNodePolicy,
		"--gpu-scheduler-policy=" + hamiGPUPolicy,
		"--force-overwrite-default-scheduler=true",
		"--device-config-file=" + p.DeviceConfigFile,
		"--leader-elect=false",
		"--leader-elect-resource-name=" + gpus.SchedulerName,
		"--leader-elect-resource-namespace=" + HAMiNamespace,
	}
	return append(args, hamiExtraArgs(l)...), nil
}

// HAMi chart 2.10.0's default policies (values.yaml
// scheduler.defaultSchedulerPolicy), which the lab keeps.
const (
	HAMiNodePolicy = "binpack"
	hamiGPUPolicy  = "spread"
)

// hamiNodeLockExpire is chart 2.10.0's scheduler.nodeLockExpire
// (charts/hami/values.yaml@v2.10.0), which the lab's values keep.
const hamiNodeLockExpire = "5m"

// HAMiExtenderEnv is the environment chart 2.10.0 gives the extender
// container (charts/hami/templates/scheduler/deployment.yaml@v2.10.0):
// POD_NAME and POD_NAMESPACE from the pod's metadata (HAMi's scheduler reads
// them in pkg/scheduler/scheduler.go@v2.10.0 to find its own pod) and
// HAMI_NODELOCK_EXPIRE from scheduler.nodeLockExpire, as "NAME=value". The
// chart's pod runs in HAMiNamespace; its name is the place's PodName.
func HAMiExtenderEnv(p HAMiPlace) []string {
	return []string{
		"POD_NAME=" + p.PodName,
		"POD_NAMESPACE=" + HAMiNamespace,
		"HAMI_NODELOCK_EXPIRE=" + hamiNodeLockExpire,
	}
}
