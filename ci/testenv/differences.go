package testenv

import (
	"fmt"
	"strings"
)

// difference is one way the local test environment runs the lab differently
// from the real lab (kind + Kamaji + HAMi). Everything not listed here runs
// from the same rendered configuration and the same code in both: the
// kube-scheduler configuration and HAMi's command line and device file
// (ci/render), the card UUIDs, types and memory (ci/gpus), the readiness
// gate "HAMi's /metrics lists every card" (gpus.SeesAllCards), the suite.
type difference struct {
	// Short names the difference in the backend line of every report.
	Short string
	// Real and Local say what each backend runs.
	Real, Local string
	// Why is the reason it remains.
	Why string
	// OnlyDouble: it applies only while the protocol double runs as HAMi
	// (not with a real HAMi binary).
	OnlyDouble bool
}

// differences is the one list of them; the README's table is generated from
// it (a test keeps them equal) and Backend names each.
var differences = []difference{
	{
		Short: "HAMi protocol double",
		Real:  "HAMi v2.10.0's scheduler extender and webhook (image projecthami/hami)",
		Local: "by default the HAMi protocol test double (ci/testenv/hamidouble, `labctl internal hami-double`), run with the same " +
			"extender command line and modelling HAMi's observed registration tick, client throttling and metrics; with --hami-binary or " +
			"--hami-image HAMi's own scheduler runs instead and this difference is gone",
		Why: "the project never builds or ships HAMi's code, and where no registry is reachable (this machine, a fresh CI runner " +
			"without HAMi's image) no HAMi binary exists; the double is test infrastructure, never presented as HAMi",
		OnlyDouble: true,
	},
	{
		Short: "HAMi as a process",
		Real: "HAMi's scheduler in the chart's Deployment: its ServiceAccount in-cluster, Service hami-scheduler in front of its port 443, " +
			"certificates from the chart's certgen Jobs",
		Local: "the same program (double or real binary) as a process with the chart's arguments and environment, the tenant's admin " +
			"kubeconfig through KUBECONFIG (where HAMi's scheduler looks first), a certificate of the tenant CA, and a loopback relay reached " +
			"only through konnectivity in place of the Service",
		Why: "there is no kubelet to run its pod; its command line, environment and device config are rendered by the same code (ci/render)",
	},
	{
		Short: "KWOK workers",
		Real: "kindest/node containers joined with kubeadm, kubelet, containerd, kube-proxy, each running HAMi's device plugin and vGPU " +
			"monitor against NVIDIA's mock NVML library",
		Local: "Node objects kept Ready by KWOK; pods get Running without containers",
		Why:   "no images and no privileged containers; the suite asserts scheduling, not workloads",
	},
	{
		Short: "one kube-scheduler",
		Real:  "the tenant's own kube-scheduler (Kamaji) and HAMi's kube-scheduler with profile hami-scheduler",
		Local: "one kube-scheduler with the same configuration plus the default-scheduler profile",
		Why:   "one process less per tenant (~65 MiB); the hami-scheduler profile, extender and backoff are identical",
	},
	{
		Short: "Kubernetes " + KubernetesVersion,
		Real:  "the lab's tenant version (versions.kubernetes, default v1.36.4)",
		Local: "kube-apiserver, kube-scheduler and kube-controller-manager " + KubernetesVersion,
		Why:   "the nearest version k8s.io/kubernetes, KWOK v0.8.0 and konnectivity v0.36.0 build at together",
	},
	{
		Short: "gpu-lab's registrar, not HAMi's device plugin",
		Real: "HAMi v2.10.0's own device plugin (chart DaemonSet hami-device-plugin) reads each worker's cards from NVIDIA's mock NVML " +
			"library (k8s-test-infra pkg/gpu/mocknvml at 0eeb2ee5, installed by DaemonSet gpu-lab-nvml-mock from the lab file), registers them " +
			"(the register annotation; nvidia.com/gpu = split × cards through the kubelet, no gpumem/gpucores resources), answers Allocate " +
			"(CUDA_DEVICE_MEMORY_LIMIT_<i>, CUDA_DEVICE_SM_LIMIT, NVIDIA_VISIBLE_DEVICES, libvgpu.so mounts) and sets the bind phase and releases " +
			"the node lock",
		Local: "gpu-lab's registrar writes the same register annotation plus the four GPU resources (nvidia.com/gpu, gpumem, gpucores, " +
			"gpumem-percentage) on each Node, and its bind finalizer sets the bind phase and releases the lock as the plugin does; no Allocate, " +
			"so no container environment; TC-18 and TC-20 are skipped, TC-19 (bind phase and lock release) checks the finalizer",
		Why: "there is no kubelet for a device plugin to register with or to call Allocate; the registrar's formats are HAMi's (ci/gpus), and " +
			"the real lab proves the plugin's",
	},
	{
		Short: "processes, not pods",
		Real:  "HAMi's metrics read through the tenant API server's service proxy",
		Local: "the registrar and finalizer run in the environment's process; HAMi's metrics read from its loopback listener",
		Why:   "there is no kubelet to run pods; the readiness check is the same",
	},
	{
		Short: "subset of controllers",
		Real:  "every kube-controller-manager controller Kamaji enables",
		Local: "the controllers a workload suite on KWOK workers can observe, without Job, CronJob and TTL-after-finished (see controllers " +
			"in tenant.go)",
		Why: "storage, certificates, IPAM and batch have nothing to act on and slow the start",
	},
	{
		Short: "fewer APIs",
		Real:  "every API group, admission plugin and priority and fairness on the tenant API server, Go's default garbage collector pace",
		Local: "no autoscaling, batch, node.k8s.io, certificates.k8s.io, flowcontrol, Ingress/IngressClass/NetworkPolicy APIs, their admission " +
			"plugins or priority and fairness; API servers collect garbage at a 200 MiB limit (GOGC=off GOMEMLIMIT=200MiB); see tuning.go",
		Why: "nothing in the suite, kube-scheduler, the controllers, KWOK or HAMi uses them, and they cost start time and memory (issue 14)",
	},
}

// differencesLine names every difference that applies, for the backend
// line; double says the protocol double runs as HAMi.
func differencesLine(double bool) string {
	var names []string
	for _, d := range differences {
		if d.OnlyDouble && !double {
			continue
		}
		names = append(names, d.Short)
	}
	return strings.Join(names, ", ")
}

// differencesMarkdown is the README's table of differences.
func differencesMarkdown() string {
	var b strings.Builder
	b.WriteString("| difference | real lab | local test environment | why |\n|---|---|---|---|\n")
	for _, d := range differences {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", d.Short, d.Real, d.Local, d.Why)
	}
	return b.String()
}
