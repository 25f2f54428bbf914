package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/suite"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// breakage makes one case's behaviour wrong and says how its failure reads.
type breakage struct {
	id string
	// why is what is broken, for the test log.
	why string
	// on are the tenants the breakage changes (their HAMi's faults, a pod
	// or node lock of its own) or whose cards the case fills; the test
	// holds them alone. The case must run on no other tenant's cards.
	on []string
	// reads are tenants the case only reads; the test shares them.
	reads []string
	// double, when set, is switched on in the HAMi protocol double of
	// every tenant in doubleOn, or else in on (a real HAMi has no such
	// switch: requireDouble).
	double   hamidouble.Faults
	doubleOn []string
	// setup breaks the platform or the config; it registers its own undo.
	setup func(t *testing.T, e *testenv.Env, cfg *suite.Config)
	// want is a substring of the case's failure message.
	want string
}

var (
	tenantA = []string{"tenant-a"}
	tenantB = []string{"tenant-b"}
)

// breakages break every case the seed lab runs but those in
// brokenElsewhere. On the seed lab TC-03, TC-05..07, TC-12, TC-13, TC-16,
// TC-18 and TC-19 run on tenant-a's A100, TC-09..11 and TC-14 on tenant-b's L4s (TC-14
// holds that whole worker: HAMi's node lock is per node); TC-01, TC-02,
// TC-04, TC-08 and TC-15 visit every tenant.
var breakages = []breakage{
	{id: "TC-01", why: "the lab pins another Kubernetes version than the servers run", reads: seedTenants,
		setup: func(_ *testing.T, _ *testenv.Env, c *suite.Config) { c.KubernetesVersion = "v1.99.0" },
		want:  "API server reports " + testenv.KubernetesVersion + ", the lab pins v1.99.0"},
	{id: "TC-02", why: "the lab spec says tenant-b has T4 cards, the platform registers L4s", reads: seedTenants,
		setup: func(t *testing.T, e *testenv.Env, c *suite.Config) {
			c.Lab = relab(t, e.Lab(), func(l *lab.Lab) { l.Tenants[1].Workers[0].GPUs[0].Model = "T4" })
		},
		want: "registers 24576 MB, the spec says T4 has 16384 MB"},
	{id: "TC-03", why: "the double never shares a card", on: tenantA, double: hamidouble.Faults{NoSharing: true},
		want: "was declared unschedulable, want it bound and Running"},
	// TC-04's pods ask for GPUs in every tenant; one tenant's webhook
	// letting them through unchanged fails it.
	{id: "TC-04", why: "tenant-b's webhook lets pods through unchanged", on: seedTenants,
		double: hamidouble.Faults{NoMutation: true}, doubleOn: tenantB, want: "came back unmutated"},
	{id: "TC-05", why: "another pod already holds a slice of the card TC-03 fills", on: tenantA,
		setup: func(t *testing.T, e *testenv.Env, _ *suite.Config) { intruder(t, e, "tenant-a", 1, 1000, 5) },
		want:  "holds 61000 MB and 95% cores, want 60000 MB and 90%"},
	{id: "TC-06", why: "the double ignores card memory", on: tenantA, double: hamidouble.Faults{IgnoreMemory: true},
		want: "want it to stay Pending"},
	{id: "TC-07", why: "the double ignores card cores", on: tenantA, double: hamidouble.Faults{IgnoreCores: true},
		want: "want it to stay Pending"},
	// Both tenants' kubeconfigs reach tenant-b: only tenant-b is visited.
	{id: "TC-08", why: "both tenant kubeconfigs point at tenant-b's control plane", reads: tenantB,
		setup: func(_ *testing.T, e *testenv.Env, c *suite.Config) {
			c.Tenants = map[string]*rest.Config{"tenant-a": e.RESTConfig("tenant-b"), "tenant-b": e.RESTConfig("tenant-b")}
		},
		want: "tenant tenant-a sees 20 allocatable nvidia.com/gpu in total, its own workers have 10"},
	{id: "TC-09", why: "one of tenant-b's two cards is fully taken", on: tenantB,
		setup: func(t *testing.T, e *testenv.Env, _ *suite.Config) { intruder(t, e, "tenant-b", 1, 24576, 100) },
		want:  "was declared unschedulable, want it bound"},
	{id: "TC-10", why: "the double grants what a node has when a pod asks for more cards", on: tenantB,
		double: hamidouble.Faults{IgnoreCount: true},
		want:   "want it to stay Pending"},
	{id: "TC-11", why: "the double treats binpack as spread", on: tenantB, double: hamidouble.Faults{IgnorePolicy: true},
		want: "want the same card"},
	{id: "TC-12", why: "the double ignores nvidia.com/use-gputype", on: tenantA, double: hamidouble.Faults{IgnoreTypeFilter: true},
		want: "want it to stay Pending"},
	{id: "TC-14", why: "tenant-b's node lock is held by a pod that never finishes binding", on: tenantB,
		setup: func(t *testing.T, e *testenv.Env, c *suite.Config) {
			// The lock is held until the test ends: no bound would see a
			// bind, so a short one (it was 8 s) keeps tenant-b free sooner.
			c.Timeouts.Burst = 3 * time.Second
			holdLock(t, e, "tenant-b")
		},
		want: "0 of 10 pods were bound within 3s"},
	{id: "TC-15", why: "both tenant kubeconfigs point at tenant-a's control plane", reads: tenantA,
		setup: func(_ *testing.T, e *testenv.Env, c *suite.Config) {
			c.Tenants = map[string]*rest.Config{"tenant-a": e.RESTConfig("tenant-a"), "tenant-b": e.RESTConfig("tenant-a")}
		},
		want: "accepted tenant tenant-a's credentials"},
	{id: "TC-16", why: "the double ignores card memory and cores", on: tenantA,
		double: hamidouble.Faults{IgnoreMemory: true, IgnoreCores: true},
		want:   "want it to stay Pending"},
	{id: "TC-18", why: "a DaemonSet named as HAMi's device plugin in tenant-a, whose card's pods no device plugin allocates (no kubelet)",
		on:    tenantA,
		setup: func(t *testing.T, e *testenv.Env, _ *suite.Config) { claimDevicePluginIn(t, e, "tenant-a") },
		want:  "did not print its environment"},
	// In the local environment gpu-lab's bind finalizer does what HAMi's
	// device plugin does at the end of Allocate; suspended, nothing
	// finishes tenant-a's binds.
	{id: "TC-19", why: "tenant-a's bind finalizer, in the place of HAMi's device plugin, is suspended", on: tenantA,
		setup: func(t *testing.T, e *testenv.Env, _ *suite.Config) { suspendFinalizer(t, e, "tenant-a") },
		want:  `hami.io/bind-phase is "allocating" 5s after the bind, want "success"`},
	{id: "TC-20", why: "a DaemonSet named as HAMi's device plugin in every tenant while gpu-lab's registrar writes the Nodes' status",
		on:    []string{"tenant-a", "tenant-b"},
		setup: claimDevicePlugin, want: "HAMi's device plugin registers no such resource"},
}

// brokenElsewhere are the cases the seed lab's breakages leave to
// otherLabBreakages, and why.
var brokenElsewhere = map[string]string{
	"TC-17": "the seed lab has no tenant with two GPU workers",
	"TC-13": "its fault leaves usage the double never forgets, so it runs last in TestOtherLabs' environment, which is stopped after it",
}

// breakageTimeouts end a broken case's waits sooner than the defaults.
var breakageTimeouts = suite.Timeouts{Bind: 20 * time.Second, Verdict: 20 * time.Second, Delete: 30 * time.Second, Case: 2 * time.Minute}

// Every case fails, with a message a person can act on, when the
// behaviour it checks is broken. Each breakage holds the seed-lab tenants
// it touches, so breakages of different tenants run at once.
func TestCaseFailsWhenBehaviourIsWrong(t *testing.T) {
	requireEnvironments(t)
	t.Parallel()
	// Cases the seed lab cannot keep broken here are broken on other labs
	// (otherLabBreakages); every case is broken somewhere.
	broken, onSeed := map[string]bool{}, map[string]bool{}
	for _, bk := range breakages {
		broken[bk.id], onSeed[bk.id] = true, true
	}
	for _, bk := range otherLabBreakages {
		broken[bk.id] = true
	}
	for _, c := range suite.Cases() {
		if !broken[c.ID] {
			t.Errorf("no breakage shows %s failing", c.ID)
		}
		if _, elsewhere := brokenElsewhere[c.ID]; onSeed[c.ID] == elsewhere {
			t.Errorf("%s: broken on the seed lab %v, but listed as broken elsewhere %v", c.ID, onSeed[c.ID], elsewhere)
		}
	}
	for _, bk := range breakages {
		t.Run(bk.id, func(t *testing.T) {
			t.Parallel()
			if bk.double != (hamidouble.Faults{}) {
				seeds.requireDouble(t)
			}
			runBreakage(t, leaseSeed(t, bk.on, bk.reads), bk)
		})
	}
}

// runBreakage breaks the platform as bk says, runs bk's case alone and
// checks that it failed saying bk.want, with diagnostics.
func runBreakage(t *testing.T, e *testenv.Env, bk breakage) {
	t.Helper()
	cfg := config(e)
	cfg.Run = "^" + bk.id + "$"
	cfg.Timeouts = breakageTimeouts
	if bk.double != (hamidouble.Faults{}) {
		on := bk.doubleOn
		if on == nil {
			on = bk.on
		}
		setFaults(t, e, bk.double, on...)
	}
	if bk.setup != nil {
		bk.setup(t, e, &cfg)
	}
	t.Logf("broken: %s", bk.why)
	run, err := suite.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := byID(run)[bk.id]
	if !ok {
		logRun(t, run)
		t.Fatalf("%s did not run", bk.id)
	}
	requireOn(t, c, bk.on...)
	if c.Status != results.Failed {
		logRun(t, run)
		t.Fatalf("%s %s with %s, want failed", bk.id, c.Status, bk.why)
	}
	// Several tenants may fail at once; Details holds every error.
	if !strings.Contains(c.Message+"\n"+c.Details, bk.want) {
		t.Errorf("%s failed with %q, want it to say %q\n%s", bk.id, c.Message, bk.want, c.Details)
	}
	if len(c.Diagnostics) == 0 {
		t.Errorf("%s failed without diagnostics", bk.id)
	}
	t.Logf("%s failed as it should: %s", bk.id, c.Message)
}

// setFaults switches f on in the HAMi double of each tenant until the test
// ends.
func setFaults(t *testing.T, e *testenv.Env, f hamidouble.Faults, tenants ...string) {
	t.Helper()
	requireDouble(t, e)
	for _, tn := range tenants {
		if err := e.Double(tn).SetFaults(f); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, tn := range tenants {
			if err := e.Double(tn).SetFaults(hamidouble.Faults{}); err != nil {
				t.Error(err)
			}
		}
	})
}

// requireOn ends the test when the case's cards belong to a tenant the test
// does not hold: its breakage would not reach them, and another test may
// be using them.
func requireOn(t *testing.T, c results.Case, held ...string) {
	t.Helper()
	for _, place := range strings.Split(c.Scenario, " + ") {
		tn, _, ok := strings.Cut(place, "/")
		if ok && !slices.Contains(held, tn) {
			t.Fatalf("%s ran on %q, a tenant this test does not hold (it holds %v): the placement of the case changed; update the test", c.ID,
				c.Scenario, held)
		}
	}
}

// relab copies a lab and edits the copy.
func relab(t *testing.T, l *lab.Lab, edit func(*lab.Lab)) *lab.Lab {
	t.Helper()
	b, err := yaml.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	c, err := lab.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	edit(c)
	return c
}

func clientOf(t *testing.T, e *testenv.Env, tenant string) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(e.RESTConfig(tenant))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// nodeOf is the tenant's only worker node (the default lab has one each).
func nodeOf(t *testing.T, e *testenv.Env, tenant string) string {
	t.Helper()
	nodes, err := clientOf(t, e, tenant).CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 1 {
		t.Fatalf("tenant %s: want one node, got %v (%v)", tenant, nodes, err)
	}
	return nodes.Items[0].Name
}

// scratchNamespace is a namespace removed (with its pods) when the test ends.
func scratchNamespace(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	ctx := context.Background()
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-broken-"}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ServiceAccounts(ns.Name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
		metav1.CreateOptions{}); err != nil {
		t.Logf("service account: %v", err)
	}
	t.Cleanup(func() {
		zero := int64(0)
		_ = cs.CoreV1().Pods(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
		_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			l, err := cs.CoreV1().Pods(ns.Name).List(ctx, metav1.ListOptions{})
			return err == nil && len(l.Items) == 0, nil
		})
		_ = cs.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

// intruder binds a pod that is not the suite's to the tenant's card(s).
func intruder(t *testing.T, e *testenv.Env, tenant string, gpu, memMB, cores int) {
	t.Helper()
	cs := clientOf(t, e, tenant)
	ns := scratchNamespace(t, cs)
	node := nodeOf(t, e, tenant)
	q := func(v int) resource.Quantity { return resource.MustParse(strconv.Itoa(v)) }
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "intruder", Namespace: ns},
		Spec: corev1.PodSpec{
			SchedulerName: gpus.SchedulerName,
			NodeSelector:  nil,
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name",
					Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}},
			}}},
			Containers: []corev1.Container{{Name: "main", Image: suite.DefaultImage,
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
					gpus.ResourceGPU: q(gpu), gpus.ResourceGPUMem: q(memMB), gpus.ResourceGPUCores: q(cores),
				}}}},
		},
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "intruder", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != "" && p.Annotations[gpus.AnnoBindPhase] == gpus.BindPhaseSuccess, nil
	})
	if err != nil {
		t.Fatalf("intruder pod (%d GPU, %d MB, %d%%) not bound on %s: %v", gpu, memMB, cores, node, err)
	}
}

// holdLock sets the tenant node's HAMi lock on behalf of an existing pod
// that never finishes binding: HAMi refuses every bind on the node until
// the lock expires (5 minutes), which is the seed lab's stall.
func holdLock(t *testing.T, e *testenv.Env, tenant string) {
	t.Helper()
	cs := clientOf(t, e, tenant)
	ns := scratchNamespace(t, cs)
	ctx := context.Background()
	holder := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "lock-holder", Namespace: ns},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"gpu-lab.dev/no-such-label": "true"},
			Containers:   []corev1.Container{{Name: "main", Image: suite.DefaultImage}},
		},
	}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, holder, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	node := nodeOf(t, e, tenant)
	patch := func(v any) {
		b := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%s}}}`, gpus.AnnoNodeLock, v)
		if _, err := cs.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, b, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	patch(strconv.Quote(gpus.LockValue(time.Now(), ns, "lock-holder")))
	t.Cleanup(func() { patch("null") })
}

// suspendFinalizer suspends gpu-lab's bind finalizer of the tenant until the
// test ends, then starts it again and removes the node lock the broken
// case's pod was left holding (nothing released it; HAMi would only on a
// later bind, after finding the pod gone), so the next test on the tenant
// binds at once.
func suspendFinalizer(t *testing.T, e *testenv.Env, tenant string) {
	t.Helper()
	cs := clientOf(t, e, tenant)
	node := nodeOf(t, e, tenant)
	t.Cleanup(func() {
		b := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:null}}}`, gpus.AnnoNodeLock)
		if _, err := cs.CoreV1().Nodes().Patch(context.Background(), node, types.MergePatchType, b, metav1.PatchOptions{}); err != nil {
			t.Errorf("tenant %s: remove the lock on node %s: %v", tenant, node, err)
		}
	})
	if err := e.Suspend(tenant, testenv.ComponentFinalizer); err != nil {
		t.Fatalf("tenant %s: suspend the bind finalizer: %v", tenant, err)
	}
	// Registered after the lock's removal, so it runs before it.
	t.Cleanup(func() {
		if err := e.Resume(tenant, testenv.ComponentFinalizer); err != nil {
			t.Errorf("tenant %s: resume the bind finalizer: %v", tenant, err)
		}
	})
}
