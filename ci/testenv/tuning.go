package testenv

import "strings"

// tuning is a command-line flag or environment variable the environment
// gives a component only so that it starts faster or holds less memory:
// what it is, why nothing the suite proves depends on what it turns off,
// where upstream defines it, and what it was measured to save (the report
// of issue 14 has the runs). Everything else on a component's command line
// makes the component work here at all (ports, certificates, tenancy).
type tuning struct {
	arg    string // "--flag=value" or, for env, "NAME=value"
	why    string
	source string // repo@version:path where the flag or variable is defined
}

func tuningArgs(ts []tuning) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.arg
	}
	return out
}

// disabledAPIs are the API group versions (and resources) the tenant API
// servers do not serve. Nothing that runs against a tenant uses them: the
// suite and the product code (core, admissionregistration), kube-scheduler
// (core, apps, policy, storage, resource, events: its informers,
// pkg/scheduler/framework/plugins and pkg/scheduler/eventhandlers.go of
// k8s.io/kubernetes@v1.36.3), kube-controller-manager with `controllers`,
// KWOK (core, coordination leases), HAMi's scheduler (core pods, nodes,
// resourcequotas, coordination leases: pkg/scheduler/scheduler.go@v2.10.0).
// Every one of them waits for its informers to sync, so a group any of them
// lists must stay: the API server itself lists EndpointSlices
// (discovery.k8s.io), and its Service IP allocator lists ServiceCIDRs and
// IPAddresses (networking.k8s.io, MultiCIDRServiceAllocator, locked on
// since 1.34: pkg/registry/core/rest/storage_core.go). A group that is not
// served has no storage, no OpenAPI and no post-start hook in the API
// server (pkg/controlplane/apiserver/apis.go), and kube-controller-manager's
// garbage collector, quota and namespace controllers do not discover it.
var disabledAPIs = []string{
	"autoscaling/v1", "autoscaling/v2", // HorizontalPodAutoscalers: no HPA controller runs
	"batch/v1",                        // Jobs, CronJobs: nothing creates them; their controllers are not run
	"node.k8s.io/v1",                  // RuntimeClasses: no kubelet; RuntimeClass admission is off
	"certificates.k8s.io/v1",          // CertificateSigningRequests: no kubelet bootstrap; their admission is off
	"flowcontrol.apiserver.k8s.io/v1", // FlowSchemas: priority and fairness is off
	// Ingresses and NetworkPolicies: no ingress controller, no network
	// plugin. ServiceCIDRs and IPAddresses of the group stay (see above).
	"networking.k8s.io/v1/ingresses", "networking.k8s.io/v1/ingressclasses", "networking.k8s.io/v1/networkpolicies",
}

// apiServerTuning is added to every tenant kube-apiserver's command line.
var apiServerTuning = []tuning{
	{
		arg: "--runtime-config=" + strings.Join(disabledAPIs, "=false,") + "=false",
		why: "API groups nothing here uses (disabledAPIs); each served group costs storage, a watch cache, OpenAPI schemas built at start, " +
			"and informers in kube-controller-manager",
		source: "k8s.io/apiserver@v0.36.3:pkg/server/options/api_enablement.go, pkg/server/resourceconfig/helpers.go (group/version=false, " +
			"group/version/resource=false)",
	},
	{
		// Each of these acts only on objects of a group disabled above,
		// and RuntimeClass and DefaultIngressClass admit nothing until
		// their informer of that group has synced (SetReadyFunc in
		// plugin/pkg/admission/runtimeclass/admission.go and
		// network/defaultingressclass/admission.go): every pod create
		// would fail. Admission the suite relies on stays on, by default:
		// NamespaceLifecycle, ServiceAccount, TaintNodesByCondition,
		// Priority, DefaultTolerationSeconds, PodSecurity,
		// MutatingAdmissionWebhook, ValidatingAdmissionWebhook,
		// ResourceQuota (pkg/kubeapiserver/options/plugins.go).
		arg: "--disable-admission-plugins=RuntimeClass,CertificateApproval,CertificateSigning,CertificateSubjectRestriction," +
			"ClusterTrustBundleAttest,DefaultIngressClass",
		why: "the plugins of the disabled groups (node.k8s.io, certificates.k8s.io, networking.k8s.io ingresses)",
		source: "k8s.io/apiserver@v0.36.3:pkg/server/options/admission.go; plugin names in " +
			"k8s.io/kubernetes@v1.36.3:pkg/kubeapiserver/options/plugins.go",
	},
	{
		arg: "--enable-priority-and-fairness=false",
		why: "fair queuing shields a shared API server from a noisy client; here the suite's own clients are the load and it asserts " +
			"nothing about queuing. Without it the API server creates no FlowSchemas at start and needs no flowcontrol.apiserver.k8s.io (disabled " +
			"above); it limits requests in flight instead (--max-requests-inflight)",
		source: "k8s.io/apiserver@v0.36.3:pkg/server/options/feature.go",
	},
}

// apiServerEnv is added to every tenant kube-apiserver's environment.
//
// The Go runtime's default (GOGC=100) collects whenever the heap doubles
// its live part: 13 collections, about a fifth of the API server's
// processor time, while it builds its OpenAPI documents and storage at start
// (GODEBUG=gctrace=1). With collection driven by a memory limit instead, it
// collects twice during the start and, once up, whenever its memory reaches
// the limit: about the pace of GOGC=100 for its ~80 MB live heap. A/B of
// BenchmarkStart (2 × 2 runs under the same load): API server 3.1-3.2 →
// 2.7 s of processor time, /readyz 0.4-0.6 s sooner, 157 → 185 MiB of its
// own memory. The limit is soft: were the live heap to near it (a lab with
// thousands of objects, not this suite's tens), the runtime would collect
// often, never fail, and spend at most half the processor on it.
var apiServerEnv = []tuning{
	{
		arg:    "GOGC=off",
		why:    "no collection proportional to the live heap: the limit below paces collection",
		source: "go1.26.8:src/runtime/extern.go (GOGC)",
	},
	{
		arg: "GOMEMLIMIT=200MiB",
		why: "the soft limit that paces collection: above the API server's ~160 MiB of own memory with the default, below what would take a " +
			"tenant past 350 MiB",
		source: "go1.26.8:src/runtime/extern.go (GOMEMLIMIT)",
	},
}

// controllerManagerTuning is added to every tenant kube-controller-manager's
// command line.
var controllerManagerTuning = []tuning{
	{
		// With --use-service-account-credentials (kept, so each controller
		// acts under its own RBAC role as in the real lab) the manager gets
		// a ServiceAccount and a token for every controller it builds,
		// one after the other through one client limited to 20 requests a
		// second (burst 30): on a fresh tenant that alone took 1.2 s before
		// the first controller ran (measured: default ServiceAccount 2.2 s
		// after the manager's start, 0.9-1.1 s with this).
		arg:    "--kube-api-qps=200",
		why:    "the manager's start is a burst of requests to an idle API server; its default client limit (20/s) spaced them out",
		source: "k8s.io/controller-manager@v0.36.3:options/generic.go",
	},
	{
		arg:    "--kube-api-burst=400",
		why:    "with --kube-api-qps: the start's burst passes unthrottled",
		source: "k8s.io/controller-manager@v0.36.3:options/generic.go",
	},
}

// What no flag removes. A CPU profile of the tenant kube-apiserver's first
// six seconds (v1.36.3 as built here, started by BenchmarkStart/lab=seed
// under runtime/pprof, six servers) put its ~2.4 cpu-s there:
//
//   - 0.30 cpu-s generating two RSA-2048 keys for the self-signed
//     certificate of its loopback client, made at every start whatever
//     certificates it is given (k8s.io/apiserver@v0.36.3:
//     pkg/server/options/serving_with_loopback.go, through
//     k8s.io/client-go@v0.36.3:util/cert/cert.go GenerateSelfSignedCertKeyWithOptions);
//   - 0.45 cpu-s on OpenAPI: the v2 and v3 documents built from its routes
//     in PrepareRun and every v3 group document serialised to hash it for
//     /openapi/v3 (k8s.io/kube-aggregator@v0.36.3:pkg/apiserver/apiserver.go
//     PrepareRun; kube-apiserver always sets the OpenAPI configs);
//   - about 0.4 cpu-s serving its own ~400 start-up requests: the RBAC
//     bootstrap policy (69 ClusterRoles, 50 ClusterRoleBindings), 15
//     APIServices, system namespaces, priority classes, each through the
//     whole handler chain, admission and field management;
//   - the rest building storage and informers for the groups it serves.
//
// So a tenant costs about 2.4 cpu-s of API server to boot whatever is cut
// above (1.6–1.8 on a faster machine the same day, BenchmarkTenants), and
// on two cores extra tenants boot no faster than ≈ 1–2 s each once both
// cores are busy: the second tenant of the seed lab took 0.77 s there,
// the fifth to eighth 1.67 s each.
