package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/run/faultkube"
)

var testFaultKube = []string{"/usr/local/bin/rehearse", "run", "fault-kube"}

// faultWorld is a world whose clock moves by tick at every reading, whose
// pauses between recovery looks are none, and whose fallback fires only
// when fireFallback is closed.
type faultWorld struct {
	*world
	mu           sync.Mutex
	now          time.Time
	tick         time.Duration
	fireFallback chan time.Time
	looks        map[string]int // verb → how many times it ran
}

func newFaultWorld(t *testing.T, tick time.Duration) (*faultWorld, Options, Deps) {
	fw := &faultWorld{world: &world{t: t}, now: time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC), tick: tick,
		fireFallback: make(chan time.Time), looks: map[string]int{}}
	o, d := setup(t, fw.world)
	o.FaultKube = testFaultKube
	d.Now = func() time.Time {
		fw.mu.Lock()
		defer fw.mu.Unlock()
		fw.now = fw.now.Add(fw.tick)
		return fw.now
	}
	d.After = func(wait time.Duration) <-chan time.Time {
		if wait == faultFallback {
			return fw.fireFallback
		}
		c := make(chan time.Time, 1)
		c <- time.Time{}
		return c
	}
	return fw, o, d
}

// verb is the fault-kube verb of a fault command, or "docker restart".
func verb(c command) string {
	args := c.Args[3:]
	if slices.Equal(args[:len(testFaultKube)], testFaultKube) {
		return args[len(testFaultKube)]
	}
	return args[0] + " " + args[1]
}

// answer counts the command and prints what reply gives for its n-th run.
func (fw *faultWorld) answer(reply func(verb string, n int) []faultkube.Line) func(command, func(stream, string)) int {
	return func(c command, line func(stream, string)) int {
		v := verb(c)
		fw.mu.Lock()
		fw.looks[v]++
		n := fw.looks[v]
		fw.mu.Unlock()
		for _, l := range reply(v, n) {
			b, err := json.Marshal(l)
			if err != nil {
				fw.t.Fatal(err)
			}
			line(stdout, string(b))
		}
		return 0
	}
}

// waitForFault blocks labctl test until a fault command has run (at most
// a minute: a bound on a hang, not a synchronisation).
func (fw *faultWorld) waitForFault() {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		fw.world.mu.Lock()
		ran := slices.ContainsFunc(fw.events, func(e string) bool { return strings.HasPrefix(e, "fault ") })
		fw.world.mu.Unlock()
		if ran {
			fw.record("labctl test saw the fault")
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	fw.t.Error("no fault command within a minute of the trigger")
}

func podLine(name, uid string, ready, deleted bool) faultkube.Line {
	return faultkube.Line{Pod: &faultkube.Pod{Name: name, UID: uid, Ready: ready, Deleted: deleted}}
}

func reportOf(t *testing.T, o Options) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(o.Reports, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantIn(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// tenant-apiserver: tenant-b's case does not set it off, tenant-a's first
// case does; the pods are deleted while labctl test runs, the recovery is
// watched until a new pod is Ready before labctl down, and a failed case
// that names the API server's port does not fail the rehearsal.
func TestRunFaultTenantAPIServer(t *testing.T) {
	fw, o, d := newFaultWorld(t, time.Second)
	o.Fault = faultTenantAPIServer
	fw.testLines = []string{
		slogLine(t, "suite starting", "lab", "gpu-lab", "tasks", 12),
		slogLine(t, "case start", "id", "TC-09", "title", "two L4", "tenants", []string{"tenant-b"}),
		slogLine(t, "case start", "id", "TC-03", "title", "Two pods share one card", "tenants", []string{"tenant-a"}),
	}
	fw.duringTest = fw.waitForFault
	fw.failedCase, fw.failedMessage = "TC-02", `create pod: Post "https://172.18.0.2:31443/api/v1/pods": `+
		`dial tcp 172.18.0.2:31443: connect: connection refused`
	fw.fault = fw.answer(func(v string, n int) []faultkube.Line {
		switch {
		case v == "delete":
			return []faultkube.Line{podLine("tenant-a-7d9-x", "u1", true, true)}
		case n == 1: // the old pod terminating, the new one starting
			// Slow: labctl down must still wait for the next look.
			time.Sleep(50 * time.Millisecond)
			return []faultkube.Line{podLine("tenant-a-7d9-x", "u1", false, false), podLine("tenant-a-7d9-z", "u9", false, false)}
		default:
			return []faultkube.Line{podLine("tenant-a-7d9-z", "u9", true, false)}
		}
	})
	if _, err := Run(context.Background(), o, d); err != nil {
		t.Fatalf("Run: %v", err)
	}
	del := "fault " + strings.Join(testFaultKube, " ") + " delete --kubeconfig " + filepath.Join(o.State, "kubeconfigs", "management.yaml") +
		" --namespace tenant-a --selector kamaji.clastix.io/name=tenant-a,kamaji.clastix.io/component=deployment"
	look := strings.Replace(del, " delete ", " pods ", 1)
	// The delete ran while labctl test ran (it waited for it); the looks
	// may come before or after labctl test returned, but all before down.
	saw := slices.Index(fw.events, "labctl test saw the fault")
	if i := slices.Index(fw.events, del); i < 0 || saw < i {
		t.Errorf("the delete did not run while labctl test ran: %q", fw.events)
	}
	rest := slices.DeleteFunc(slices.Clone(fw.events), func(e string) bool { return e == "labctl test saw the fault" })
	if want := []string{"daemon start", "labctl up", "labctl test", del, look, look, "labctl down", "daemon stop"}; !slices.Equal(rest, want) {
		t.Errorf("events\n got %q\nwant %q", rest, want)
	}
	wantIn(t, "rehearsal.md", reportOf(t, o),
		"## Fault: tenant-apiserver",
		"delete tenant-a's control-plane pod(s)",
		"- trigger: TC-03, a case of tenant-a, started",
		"after labctl test began, by:\n  - `DOCKER_HOST=",
		"rehearse run fault-kube delete --kubeconfig",
		"- did: deleted pod tenant-a-7d9-x (uid u1)",
		"- **recovered ", " after the fault** (look 2, every 2s): 1 new pod(s) Ready of 1 deleted: tenant-a-7d9-z",
		`- failed TC-02: create pod: Post "https://172.18.0.2:31443/api/v1/pods"`, `names the fault (":31443")`,
		"- every command's output: fault.log",
	)
	wantIn(t, "fault.log", readFile(t, filepath.Join(o.Reports, faultLog)), "$ DOCKER_HOST=", `"name":"tenant-a-7d9-z"`)
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hami-scheduler: a failed case whose message names nothing of the fault
// fails the rehearsal, and says which words would have counted; the lab is
// still taken down.
func TestRunFaultUnnamedCaseFails(t *testing.T) {
	fw, o, d := newFaultWorld(t, time.Second)
	o.Fault = faultHAMiScheduler
	fw.testLines = []string{slogLine(t, "case start", "id", "TC-01", "title", "x", "tenants", []string{"tenant-a"})}
	fw.duringTest = fw.waitForFault
	fw.failedCase = "TC-02" // "pod stayed Pending"
	fw.fault = fw.answer(func(v string, n int) []faultkube.Line {
		if v == "delete" {
			return []faultkube.Line{podLine("hami-scheduler-5c-x", "h1", true, true)}
		}
		return []faultkube.Line{podLine("hami-scheduler-5c-y", "h2", true, false)}
	})
	_, err := Run(context.Background(), o, d)
	if err == nil {
		t.Fatal("Run passed although a failed case names nothing of the fault")
	}
	wantIn(t, "the error", err.Error(), "with fault hami-scheduler, 1 failed case(s) name nothing of it",
		"TC-02: pod stayed Pending", "vgpu.hami.io")
	if !slices.Contains(fw.events, "labctl down") {
		t.Errorf("labctl down did not run: %q", fw.events)
	}
	wantIn(t, "rehearsal.md", reportOf(t, o), "- failed TC-02: pod stayed Pending — names nothing of the fault",
		"--kubeconfig "+filepath.Join(o.State, "kubeconfigs", "tenant-a.yaml")+" --namespace kube-system")
}

// etcd-leader: the member whose metrics say it leads is deleted by name
// and uid; the new leader is noted, and the recovery waits for the
// recreated member.
func TestRunFaultEtcdLeader(t *testing.T) {
	fw, o, d := newFaultWorld(t, time.Second)
	o.Fault = faultEtcdLeader
	fw.testLines = []string{slogLine(t, "case start", "id", "TC-01", "title", "x", "tenants", []string{"tenant-a"})}
	fw.duringTest = fw.waitForFault
	member := func(name, uid string, ready, leads, has bool) faultkube.Line {
		return faultkube.Line{Pod: &faultkube.Pod{Name: name, UID: uid, Ready: ready, Etcd: &faultkube.Member{IsLeader: leads, HasLeader: has}}}
	}
	var deleted string
	fw.fault = fw.answer(func(v string, n int) []faultkube.Line {
		switch {
		case v == "delete":
			return []faultkube.Line{podLine("kamaji-etcd-1", "e1", true, true)}
		case n == 1: // before the fault
			return []faultkube.Line{member("kamaji-etcd-0", "e0", true, false, true),
				member("kamaji-etcd-1", "e1", true, true, true), member("kamaji-etcd-2", "e2", true, false, true)}
		case n == 2: // elected, the member not back
			return []faultkube.Line{member("kamaji-etcd-0", "e0", true, true, true), member("kamaji-etcd-2", "e2", true, false, true)}
		default:
			return []faultkube.Line{member("kamaji-etcd-0", "e0", true, true, true),
				member("kamaji-etcd-1", "e1b", true, false, true), member("kamaji-etcd-2", "e2", true, false, true)}
		}
	})
	if _, err := Run(context.Background(), o, d); err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, e := range fw.events {
		if strings.Contains(e, " delete ") {
			deleted = e
		}
	}
	if !strings.HasSuffix(deleted, " --name kamaji-etcd-1 --uid e1") {
		t.Errorf("the delete %q is not of the leader by name and uid", deleted)
	}
	if fw.looks["etcd-members"] != 3 {
		t.Errorf("%d etcd-members looks, want 3 (before, elected, back)", fw.looks["etcd-members"])
	}
	wantIn(t, "rehearsal.md", reportOf(t, o), "## Fault: etcd-leader", "- did: kamaji-etcd-1 leads (of 3 members)",
		"- did: deleted pod kamaji-etcd-1 (uid e1)", "- a new leader, kamaji-etcd-0, was seen", "**recovered", "3 of 3 members",
		"- the suite: no case failed")
}

// worker-restart with no case of tenant-a in the log: the fallback sets it
// off; a kubelet that never renews its lease after the restart is "not
// recovered within" the bound, which is no failure by itself.
func TestRunFaultWorkerRestartFallbackNotRecovered(t *testing.T) {
	fw, o, d := newFaultWorld(t, 20*time.Second)
	o.Fault = faultWorkerRestart
	fw.testLines = []string{slogLine(t, "case start", "id", "TC-09", "title", "x", "tenants", []string{"tenant-b"})}
	fw.duringTest = func() {
		close(fw.fireFallback)
		fw.waitForFault()
	}
	start := fw.now
	fw.fault = fw.answer(func(v string, n int) []faultkube.Line {
		if v == "docker restart" {
			return nil
		}
		return []faultkube.Line{{Node: &faultkube.Node{Name: "gpu-lab-tenant-a-worker", Ready: true, LeaseRenewed: start}}}
	})
	if _, err := Run(context.Background(), o, d); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !slices.Contains(fw.events, "fault docker restart gpu-lab-tenant-a-worker") {
		t.Errorf("no docker restart: %q", fw.events)
	}
	wantIn(t, "rehearsal.md", reportOf(t, o), "- trigger: fallback: no case of tenant-a had started 30s after labctl test began",
		"- did: restarted container gpu-lab-tenant-a-worker", "- **not recovered within 5m0s**",
		"(after the restart: false)")
}

// labctl test ends before any case of the tenant started and before the
// fallback: no fault is made, and a rehearsal asked for one fails.
func TestRunFaultNotMade(t *testing.T) {
	fw, o, d := newFaultWorld(t, time.Second)
	o.Fault = faultTenantAPIServer
	fw.fault = fw.answer(func(string, int) []faultkube.Line { return nil })
	_, err := Run(context.Background(), o, d)
	if err == nil || !strings.Contains(err.Error(),
		"the fault tenant-apiserver was not made: labctl test ended before a case of tenant-a started") {
		t.Fatalf("Run: %v", err)
	}
	if want := []string{"daemon start", "labctl up", "labctl test", "labctl down", "daemon stop"}; !slices.Equal(fw.events, want) {
		t.Errorf("events %q, want %q", fw.events, want)
	}
	wantIn(t, "rehearsal.md", reportOf(t, o), "**The fault was not made: labctl test ended")
}

// Without --fault nothing of a fault runs or is written.
func TestRunWithoutFault(t *testing.T) {
	w := &world{t: t, testLines: []string{slogLine(t, "case start", "id", "TC-03", "title", "x", "tenants", []string{"tenant-a"})}}
	o, d := setup(t, w)
	if _, err := Run(context.Background(), o, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(reportOf(t, o), "## Fault") {
		t.Error("rehearsal.md has a fault section without --fault")
	}
	if _, err := os.Stat(filepath.Join(o.Reports, faultLog)); !os.IsNotExist(err) {
		t.Errorf("%s written without --fault (%v)", faultLog, err)
	}
}
