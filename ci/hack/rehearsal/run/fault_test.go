package run

import (
	"bytes"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// --fault takes the four names and none; anything else is refused with the
// list of names.
func TestParseFault(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Fault
		err  string
	}{
		{"", "", ""},
		{"tenant-apiserver", faultTenantAPIServer, ""},
		{"worker-restart", faultWorkerRestart, ""},
		{"hami-scheduler", faultHAMiScheduler, ""},
		{"etcd-leader", faultEtcdLeader, ""},
		{"etcd", "", `--fault "etcd": no such fault; want one of tenant-apiserver, worker-restart, hami-scheduler, etcd-leader (or none)`},
		{"Tenant-APIServer", "", "no such fault"},
		{" tenant-apiserver", "", "no such fault"},
	} {
		f, err := ParseFault(tc.in)
		if f != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseFault(%q) = %q, %v; want %q, %q", tc.in, f, err, tc.want, tc.err)
		}
	}
	if h := FaultHelp(); strings.Count(h, "\n") != 4 || !strings.Contains(h, "etcd-leader: ") {
		t.Errorf("FaultHelp:\n%s", h)
	}
}

// slogLine is a line as labctl test --verbose prints it: the suite's own
// call (ci/suite runner.go runCase) through slog's TextHandler.
func slogLine(t *testing.T, msg string, args ...any) string {
	t.Helper()
	var b bytes.Buffer
	slog.New(slog.NewTextHandler(&b, nil)).Info(msg, args...)
	return strings.TrimSuffix(b.String(), "\n")
}

// The trigger reads the suite's "case start" record, whatever the title
// holds; other records, and a tenant whose name only begins like it, do not
// set it off.
func TestCaseStartTrigger(t *testing.T) {
	for _, tc := range []struct {
		name    string
		line    string
		ok      bool
		id      string
		tenants []string
		fires   bool // for tenant-a
	}{
		{"one tenant", slogLine(t, "case start", "id", "TC-03", "title", "Two pods share one card", "tenants", []string{"tenant-a"}),
			true, "TC-03", []string{"tenant-a"}, true},
		{"two tenants", slogLine(t, "case start", "id", "TC-12", "title", `isolation "a=b"`, "tenants", []string{"tenant-b", "tenant-a"}),
			true, "TC-12", []string{"tenant-b", "tenant-a"}, true},
		{"another tenant", slogLine(t, "case start", "id", "TC-09", "title", "L4", "tenants", []string{"tenant-b"}),
			true, "TC-09", []string{"tenant-b"}, false},
		{"a name that begins like it", slogLine(t, "case start", "id", "TC-09", "title", "x", "tenants", []string{"tenant-ab"}),
			true, "TC-09", []string{"tenant-ab"}, false},
		{"case done", slogLine(t, "case done", "id", "TC-03", "status", "passed", "tenants", []string{"tenant-a"}), false, "", nil, false},
		{"suite starting", slogLine(t, "suite starting", "lab", "gpu-lab", "tasks", 12), false, "", nil, false},
		{"a result table row", "TC-03  passed  case start tenant-a", false, "", nil, false},
		{"broken quoting", `time=x level=INFO msg="case start`, false, "", nil, false},
		{"empty", "", false, "", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, tenants, ok := caseStart(tc.line)
			if ok != tc.ok || id != tc.id || !slices.Equal(tenants, tc.tenants) {
				t.Errorf("caseStart(%q) = %q, %q, %t; want %q, %q, %t", tc.line, id, tenants, ok, tc.id, tc.tenants, tc.ok)
			}
			fr := &faultRun{pl: faultPlan{Tenant: "tenant-a"}, trigger: make(chan string, 1)}
			fr.saw(tc.line)
			select {
			case why := <-fr.trigger:
				if !tc.fires {
					t.Errorf("set off by %q: %s", tc.line, why)
				} else if !strings.HasPrefix(why, tc.id+", a case of tenant-a, started") {
					t.Errorf("trigger says %q", why)
				}
			default:
				if tc.fires {
					t.Errorf("not set off by %q", tc.line)
				}
			}
		})
	}
}

func seedPlan(t *testing.T, f Fault) faultPlan {
	t.Helper()
	pl, err := planFault(f, lab.Default(), testPaths, []string{"/usr/local/bin/rehearse", "run", "fault-kube"})
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// Each fault targets the seed lab's tenant-a; its commands run in the
// namespace with the rehearsal's environment, with the kubeconfigs labctl
// up wrote and the names the pinned charts give.
func TestFaultCommands(t *testing.T) {
	ns := []string{"nsenter", "--net=/var/run/netns/gpu-lab-rehearsal", "--"}
	kube := []string{"/usr/local/bin/rehearse", "run", "fault-kube"}
	mgmt, tenant := "/cache/run/state/kubeconfigs/management.yaml", "/cache/run/state/kubeconfigs/tenant-a.yaml"
	api, hami, etcd, worker := seedPlan(t, faultTenantAPIServer), seedPlan(t, faultHAMiScheduler),
		seedPlan(t, faultEtcdLeader), seedPlan(t, faultWorkerRestart)
	if api.Tenant != "tenant-a" || api.Node != "gpu-lab-tenant-a-worker" || api.APIPort != 31443 {
		t.Errorf("target %s %s %d, want tenant-a, gpu-lab-tenant-a-worker, 31443", api.Tenant, api.Node, api.APIPort)
	}
	for _, tc := range []struct {
		name string
		c    command
		want []string
	}{
		{"tenant-apiserver delete", api.deletePods(), append(slices.Clone(kube), "delete", "--kubeconfig", mgmt, "--namespace", "tenant-a",
			"--selector", "kamaji.clastix.io/name=tenant-a,kamaji.clastix.io/component=deployment")},
		{"tenant-apiserver look", api.listPods(), append(slices.Clone(kube), "pods", "--kubeconfig", mgmt, "--namespace", "tenant-a",
			"--selector", "kamaji.clastix.io/name=tenant-a,kamaji.clastix.io/component=deployment")},
		{"hami-scheduler delete", hami.deletePods(), append(slices.Clone(kube), "delete", "--kubeconfig", tenant, "--namespace", "kube-system",
			"--selector", "app.kubernetes.io/component=hami-scheduler,app.kubernetes.io/name=hami,app.kubernetes.io/instance=hami")},
		{"etcd members", etcd.etcdMembers(), append(slices.Clone(kube), "etcd-members", "--kubeconfig", mgmt, "--namespace", "kamaji-system",
			"--selector", "app.kubernetes.io/name=kamaji-etcd,app.kubernetes.io/instance=kamaji", "--metrics-port", "2381")},
		{"etcd delete", etcd.deleteMember("kamaji-etcd-1", "u1"),
			append(slices.Clone(kube), "delete", "--kubeconfig", mgmt, "--namespace", "kamaji-system",
				"--selector", "app.kubernetes.io/name=kamaji-etcd,app.kubernetes.io/instance=kamaji", "--name", "kamaji-etcd-1", "--uid", "u1")},
		{"worker restart", worker.restartWorker(), []string{"docker", "restart", "gpu-lab-tenant-a-worker"}},
		{"worker look", worker.node(), append(slices.Clone(kube), "node", "--kubeconfig", tenant, "--name", "gpu-lab-tenant-a-worker")},
	} {
		if want := append(slices.Clone(ns), tc.want...); !slices.Equal(tc.c.Args, want) {
			t.Errorf("%s: argv\n got %q\nwant %q", tc.name, tc.c.Args, want)
		}
		if !slices.Equal(tc.c.Env, testPaths.env()) || tc.c.Step != stepFault {
			t.Errorf("%s: env %q, step %q", tc.name, tc.c.Env, tc.c.Step)
		}
	}
	// The rehearsal's own lab targets the same tenant.
	l, err := lab.Parse(rehearsal.LabYAML)
	if err != nil {
		t.Fatal(err)
	}
	if pl, err := planFault(faultWorkerRestart, l, testPaths, kube); err != nil || pl.Node != "gpu-lab-tenant-a-worker" {
		t.Errorf("rehearsal lab: %+v, %v", pl, err)
	}
	// A lab whose first tenant has no worker: the first that has one.
	l.Tenants[0].Workers = nil
	if pl, err := planFault(faultHAMiScheduler, l, testPaths, kube); err != nil || pl.Tenant != "tenant-b" ||
		pl.Node != "gpu-lab-tenant-b-worker" {
		t.Errorf("first tenant without a worker: %+v, %v", pl, err)
	}
	l.Tenants[1].Workers = nil
	if _, err := planFault(faultHAMiScheduler, l, testPaths, kube); err == nil || !strings.Contains(err.Error(), "no tenant with a worker") {
		t.Errorf("no worker anywhere: %v", err)
	}
	if _, err := planFault(faultHAMiScheduler, lab.Default(), testPaths, nil); err == nil ||
		!strings.Contains(err.Error(), "FaultKube is empty") {
		t.Errorf("no fault-kube argv: %v", err)
	}
}

// What counts as naming the fault: its own words alone, or the tenant with
// a word of the component.
func TestFaultNamedByMessage(t *testing.T) {
	for _, tc := range []struct {
		f    Fault
		msg  string
		want string // "" for not named
	}{
		{faultTenantAPIServer, `TC-03: create pod: Post "https://172.18.0.2:31443/api/v1/namespaces/x/pods": ` +
			`dial tcp 172.18.0.2:31443: connect: connection refused`, ":31443"},
		{faultTenantAPIServer, "TC-03: watch pods: http2: client connection lost", "http2: client connection lost"},
		{faultTenantAPIServer, "TC-03: tenant-a: API server unreachable", "tenant-a + api server"},
		{faultTenantAPIServer, "TC-03: pod stayed Pending", ""},
		{faultTenantAPIServer, "TC-09: tenant-b: API server unreachable", ""},
		{faultTenantAPIServer, "TC-03: tenant-a: pod stayed Pending", ""},
		{faultWorkerRestart, "TC-03: pod x on node gpu-lab-tenant-a-worker: sandbox changed", "gpu-lab-tenant-a-worker"},
		{faultWorkerRestart, "TC-03: tenant-a: node not Ready", "tenant-a + node"},
		{faultWorkerRestart, "TC-09: tenant-b: node not Ready", ""},
		{faultHAMiScheduler, `TC-03: create pod: Internal error occurred: failed calling webhook "vgpu.hami.io": no endpoints`, "vgpu.hami.io"},
		{faultHAMiScheduler, "TC-06: pod stayed Pending: scheduler hami-scheduler", "hami-scheduler"},
		{faultHAMiScheduler, "TC-06: pod stayed Pending", ""},
		{faultEtcdLeader, "TC-09: create pod: etcdserver: leader changed", "etcd"},
		{faultEtcdLeader, "TC-09: tenant-b: the server was unable to return a response", ""},
	} {
		w, ok := seedPlan(t, tc.f).names(tc.msg)
		if ok != (tc.want != "") || w != tc.want {
			t.Errorf("%s names(%q) = %q, %t; want %q", tc.f, tc.msg, w, ok, tc.want)
		}
	}
}
