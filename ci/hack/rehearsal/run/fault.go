package run

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/run/faultkube"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/stages"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// Fault is one component fault `rehearse run --fault` makes on the real lab
// while the suite runs (issue 43), once, on the lab's first tenant with a
// worker. The zero Fault is none: the rehearsal as it always ran.
type Fault string

const (
	faultTenantAPIServer Fault = "tenant-apiserver"
	faultWorkerRestart   Fault = "worker-restart"
	faultHAMiScheduler   Fault = "hami-scheduler"
	faultEtcdLeader      Fault = "etcd-leader"
)

// faults are the faults in the order help and errors list them, each with
// what it does.
var faults = []struct {
	f    Fault
	what string
}{
	{faultTenantAPIServer, "delete the tenant's control-plane pod (kube-apiserver and its neighbours) in the management cluster"},
	{faultWorkerRestart, "docker restart the tenant's first worker container"},
	{faultHAMiScheduler, "delete the tenant's HAMi scheduler pod (extender and webhook) in the tenant's cluster"},
	{faultEtcdLeader, "delete the kamaji-etcd member pod whose metrics say it leads"},
}

// FaultNames lists the faults' names.
func FaultNames() []string {
	out := make([]string, len(faults))
	for i, f := range faults {
		out[i] = string(f.f)
	}
	return out
}

// FaultHelp is one "name: what" line per fault, for the flag's help.
func FaultHelp() string {
	var b strings.Builder
	for _, f := range faults {
		fmt.Fprintf(&b, "  %s: %s\n", f.f, f.what)
	}
	return b.String()
}

// ParseFault reads --fault: "" is none.
func ParseFault(name string) (Fault, error) {
	if name == "" {
		return "", nil
	}
	for _, f := range faults {
		if string(f.f) == name {
			return f.f, nil
		}
	}
	return "", fmt.Errorf("--fault %q: no such fault; want one of %s (or none)", name, strings.Join(FaultNames(), ", "))
}

// Where the faults' objects are, as the pinned charts and the lab name them.
const (
	// Kamaji 26.8.2-edge (ddbabd8) runs a TenantControlPlane as a
	// Deployment of its name in its namespace
	// (internal/resources/k8s_deployment_resource.go:54-58); its pods carry
	// kamaji.clastix.io/name=<TCP> and kamaji.clastix.io/component=deployment
	// (internal/builders/controlplane/deployment.go:1106-1107; the
	// Deployment selects on the first, :1076-1081). One pod holds the
	// tenant's kube-apiserver, scheduler, controller manager and
	// konnectivity server. The lab names the TCP and its namespace after
	// the tenant (ci/render tenantcontrolplane.go TenantNamespace).
	tcpComponentLabel = render.KamajiPodLabelComponent + "=" + render.KamajiPodComponent

	// HAMi chart 2.10.0 (tag v2.10.0, 4707fb02): the scheduler Deployment's
	// pods carry app.kubernetes.io/component: hami-scheduler
	// (charts/hami/templates/scheduler/deployment.yaml:28) and the chart's
	// selector labels app.kubernetes.io/name: <chart name, or nameOverride>
	// and app.kubernetes.io/instance: <release> (deployment.yaml:29,
	// templates/_helpers.tpl:94-97, :4-6); the Deployment selects on all
	// three (deployment.yaml:21-24). The chart is named hami (Chart.yaml:2),
	// nameOverride is "" (values.yaml:20), and the lab installs release
	// hami into kube-system (ci/render hami.go HAMiRelease, HAMiNamespace).
	// The pod serves both the scheduler extender and the mutating webhook
	// vgpu.hami.io (templates/scheduler/webhook.yaml:17-25).
	hamiSchedulerSelector = "app.kubernetes.io/component=hami-scheduler,app.kubernetes.io/name=" + render.HAMiChartName +
		",app.kubernetes.io/instance=" + render.HAMiRelease

	// kamaji-etcd v0.17.0 (92f31f0), the subchart of Kamaji's chart at
	// 26.8.2-edge: StatefulSet kamaji-etcd (Kamaji's fullnameOverride,
	// charts/kamaji/values.yaml:104; kamaji-etcd templates/_helpers.tpl:11-13
	// and :86-88, templates/etcd_sts.yaml:6) of replicas 3 (values.yaml:6)
	// in the release's namespace (etcd_sts.yaml:7: kamaji-system), whose
	// pods carry the selector labels app.kubernetes.io/name: kamaji-etcd
	// (the chart's name, Chart.yaml:2; nameOverride "", values.yaml:24)
	// and app.kubernetes.io/instance: kamaji (the release, ci/stages
	// KamajiRelease) (etcd_sts.yaml:10-12 and :21-22, _helpers.tpl:67-70).
	// Each member serves plain-HTTP metrics on metricsPort 2381
	// (values.yaml:34; etcd_sts.yaml:89 --listen-metrics-urls=http://0.0.0.0:2381),
	// which faultkube reads for the leader.
	etcdSelector    = "app.kubernetes.io/name=kamaji-etcd,app.kubernetes.io/instance=" + stages.KamajiRelease
	etcdMetricsPort = 2381
)

// faultPlan is one fault on one lab: its target, and the words a failed
// case's message names it by.
type faultPlan struct {
	Fault Fault
	// Tenant is the lab file's first tenant with a worker; Node its first
	// worker's container and node name (lab.NodeName).
	Tenant, Node string
	// APIPort is the tenant API server's NodePort.
	APIPort int32
	// Kube is argv of `rehearse run fault-kube` (Options.FaultKube).
	Kube  []string
	paths Paths

	// own are words that name the fault alone; component name it together
	// with the tenant's name (see names).
	own, component []string
}

// planFault resolves f on the lab: the target, the commands' inputs, the
// words that name it.
func planFault(f Fault, l *lab.Lab, p Paths, kube []string) (faultPlan, error) {
	pl := faultPlan{Fault: f, Kube: kube, paths: p}
	for _, t := range l.Tenants {
		if len(t.Workers) > 0 {
			pl.Tenant, pl.Node, pl.APIPort = t.Name, l.NodeName(t.Name, t.Workers[0].Name), t.Ports.APIServer
			break
		}
	}
	switch {
	case pl.Tenant == "":
		return pl, fmt.Errorf("--fault %s: lab %s has no tenant with a worker to make it on; "+
			"use a lab file whose tenants have workers", f, l.Name)
	case len(kube) == 0:
		return pl, fmt.Errorf("--fault %s: no fault-kube command to run in the namespace (Options.FaultKube is empty; `rehearse run` sets it)", f)
	}
	// Connection errors: what a client of a server that went away reads
	// (Go's net and http2 errors, as client-go passes them on).
	conn := []string{"connection refused", "connection reset", "http2: client connection lost", ": EOF", "unexpected EOF", "i/o timeout"}
	switch f {
	case faultTenantAPIServer:
		// client-go's errors carry the server's URL, so the tenant's API
		// server port names it (the kubeconfig labctl up writes points at
		// the NodePort).
		pl.own = append([]string{":" + strconv.Itoa(int(pl.APIPort)), "kube-apiserver"}, conn...)
		pl.component = []string{"api server", "apiserver", "control plane", "unreachable"}
	case faultWorkerRestart:
		pl.own = append([]string{pl.Node, "kubelet", "NotReady"}, conn...)
		pl.component = []string{"worker", "node"}
	case faultHAMiScheduler:
		pl.own = []string{"hami-scheduler", "vgpu.hami.io", "failed calling webhook", "extender"}
		pl.component = []string{"hami", "webhook", "scheduler"}
	case faultEtcdLeader:
		// Every tenant's data is in kamaji-etcd: the tenant is not needed.
		pl.own = []string{"etcd", "leader"}
	}
	return pl, nil
}

// names says whether a failed case's message names the fault, and by which
// word. The rule, kept simple: the message contains, ignoring case, one
// of the fault's own words — the component's name, the tenant's worker
// node, the tenant API server's port, etcd, or a connection error of a
// server that went away — or the tenant's name together with a word of
// the component (api server, worker, node, hami, webhook, scheduler). A
// message that names neither says nothing a platform team could act on.
func (pl faultPlan) names(msg string) (string, bool) {
	m := strings.ToLower(msg)
	for _, w := range pl.own {
		if strings.Contains(m, strings.ToLower(w)) {
			return w, true
		}
	}
	if !strings.Contains(m, strings.ToLower(pl.Tenant)) {
		return "", false
	}
	for _, w := range pl.component {
		if strings.Contains(m, w) {
			return pl.Tenant + " + " + w, true
		}
	}
	return "", false
}

// what says what the fault does to this lab, for the report.
func (pl faultPlan) what() string {
	switch pl.Fault {
	case faultTenantAPIServer:
		return fmt.Sprintf(
			"delete %s's control-plane pod(s) (%s in namespace %s of the management cluster): its kube-apiserver, "+
				"scheduler, controller manager and konnectivity server go away until Kamaji's Deployment has a new pod Ready",
			pl.Tenant, tcpSelector(pl.Tenant), render.TenantNamespace(pl.Tenant))
	case faultWorkerRestart:
		return fmt.Sprintf("`docker restart %s` on the private daemon: the worker's kubelet, "+
			"containerd and every pod on it stop and start again", pl.Node)
	case faultHAMiScheduler:
		return fmt.Sprintf("delete %s's HAMi scheduler pod (%s in namespace %s of the tenant's cluster): "+
			"HAMi's scheduler extender and its webhook vgpu.hami.io go away until the Deployment has a new pod Ready",
			pl.Tenant, hamiSchedulerSelector, render.HAMiNamespace)
	default:
		return fmt.Sprintf("delete the kamaji-etcd member pod that leads (%s in namespace %s of the management cluster; "+
			"the leader read from each member's %s on port %d): the members elect another, the StatefulSet recreates the pod",
			etcdSelector, stages.KamajiNamespace, "etcd_server_is_leader", etcdMetricsPort)
	}
}

func tcpSelector(tenant string) string {
	return render.KamajiPodLabelName + "=" + tenant + "," + tcpComponentLabel
}

// The commands a fault runs, all inside the daemon's network namespace with
// the rehearsal's environment, as labctl runs: the lab's API servers exist
// only there, and DOCKER_HOST names the private daemon.
func (pl faultPlan) kube(kubeconfig, verb string, args ...string) command {
	argv := append(slices.Clone(pl.Kube), verb, "--kubeconfig", kubeconfig)
	return command{Step: stepFault, Args: inNetns(pl.paths.Netns, append(argv, args...)...), Env: pl.paths.env()}
}

func (pl faultPlan) management() string { return state.Dir(pl.paths.State).ManagementKubeconfig() }
func (pl faultPlan) tenantKube() string { return state.Dir(pl.paths.State).Kubeconfig(pl.Tenant) }

// deletePods deletes the fault's pods; pods lists them for the recovery.
func (pl faultPlan) deletePods() command {
	kc, ns, sel := pl.podsOf()
	return pl.kube(kc, faultkube.VerbDelete, "--namespace", ns, "--selector", sel)
}

func (pl faultPlan) listPods() command {
	kc, ns, sel := pl.podsOf()
	return pl.kube(kc, faultkube.VerbPods, "--namespace", ns, "--selector", sel)
}

// podsOf is the kubeconfig, namespace and selector of the fault's pods.
func (pl faultPlan) podsOf() (string, string, string) {
	if pl.Fault == faultHAMiScheduler {
		return pl.tenantKube(), render.HAMiNamespace, hamiSchedulerSelector
	}
	return pl.management(), render.TenantNamespace(pl.Tenant), tcpSelector(pl.Tenant)
}

func (pl faultPlan) etcdMembers() command {
	return pl.kube(pl.management(), faultkube.VerbMembers, "--namespace", stages.KamajiNamespace,
		"--selector", etcdSelector, "--metrics-port", strconv.Itoa(etcdMetricsPort))
}

func (pl faultPlan) deleteMember(name, uid string) command {
	return pl.kube(pl.management(), faultkube.VerbDelete, "--namespace", stages.KamajiNamespace,
		"--selector", etcdSelector, "--name", name, "--uid", uid)
}

// restartWorker is `docker restart NODE` (docker/cli v29.7.2
// cli/command/container/restart.go:23-41: "docker container restart",
// alias "docker restart"; it returns once the container runs again).
func (pl faultPlan) restartWorker() command {
	return command{Step: stepFault, Args: inNetns(pl.paths.Netns, "docker", "restart", pl.Node), Env: pl.paths.env()}
}

func (pl faultPlan) node() command {
	return pl.kube(pl.tenantKube(), faultkube.VerbNode, "--name", pl.Node)
}

// caseStart reads one line of `labctl test --verbose`: the suite logs
// "case start" with the case's id and tenants as a case begins (ci/suite
// runner.go runCase), through slog's TextHandler on stderr (ci/cmd/labctl
// test.go, --verbose). ok is false for every other line.
func caseStart(line string) (id string, tenants []string, ok bool) {
	kv := logfmt(line)
	if kv["msg"] != "case start" {
		return "", nil, false
	}
	return kv["id"], strings.Fields(strings.Trim(kv["tenants"], "[]")), true
}

// logfmt reads slog TextHandler's key=value pairs: a value is quoted (Go
// syntax, strconv.Quote) when it holds a space, '=' or '"', bare
// otherwise. A line it cannot read yields what it read so far.
func logfmt(line string) map[string]string {
	out := map[string]string{}
	s := line
	for {
		s = strings.TrimLeft(s, " ")
		key, rest, ok := strings.Cut(s, "=")
		if !ok || key == "" || strings.ContainsAny(key, " \"") {
			return out
		}
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return out
			}
			v, _ := strconv.Unquote(q)
			out[key], s = v, rest[len(q):]
			continue
		}
		v, after, _ := strings.Cut(rest, " ")
		out[key], s = v, after
	}
}
