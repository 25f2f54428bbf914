package e2e

import (
	"context"
	"fmt"
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
	// setup breaks the platform or the config; it registers its own undo.
	setup func(t *testing.T, e *testenv.Env, cfg *suite.Config)
	// want is a substring of the case's failure message.
	want string
	// ownEnv runs the breakage in an environment of its own: some faults
	// leave state behind in the double (usage it never forgets).
	ownEnv bool
}

func faults(f hamidouble.Faults) func(*testing.T, *testenv.Env, *suite.Config) {
	return func(t *testing.T, e *testenv.Env, _ *suite.Config) {
		for _, tn := range e.Tenants() {
			if err := e.Double(tn).SetFaults(f); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() {
			for _, tn := range e.Tenants() {
				if err := e.Double(tn).SetFaults(hamidouble.Faults{}); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

var breakages = []breakage{
	{"TC-01", "the lab pins another Kubernetes version than the servers run",
		func(_ *testing.T, _ *testenv.Env, c *suite.Config) { c.KubernetesVersion = "v1.99.0" },
		"API server reports " + testenv.KubernetesVersion + ", the lab pins v1.99.0", false},
	{"TC-02", "the lab spec says tenant-b has T4 cards, the platform registers L4s",
		func(t *testing.T, e *testenv.Env, c *suite.Config) {
			c.Lab = relab(t, e.Lab(), func(l *lab.Lab) { l.Tenants[1].Workers[0].GPUs[0].Model = "T4" })
		},
		"registers 24576 MB, the spec says T4 has 16384 MB", false},
	{"TC-03", "the double never shares a card", faults(hamidouble.Faults{NoSharing: true}),
		"was declared unschedulable, want it bound and Running", false},
	{"TC-04", "the webhook lets pods through unchanged", faults(hamidouble.Faults{NoMutation: true}),
		"came back unmutated", false},
	{"TC-05", "another pod already holds a slice of the card TC-03 fills",
		func(t *testing.T, e *testenv.Env, _ *suite.Config) { intruder(t, e, "tenant-a", 1, 1000, 5) },
		"holds 61000 MB and 95% cores, want 60000 MB and 90%", false},
	{"TC-06", "the double ignores card memory", faults(hamidouble.Faults{IgnoreMemory: true}),
		"want it to stay Pending", false},
	{"TC-07", "the double ignores card cores", faults(hamidouble.Faults{IgnoreCores: true}),
		"want it to stay Pending", false},
	{"TC-08", "both tenant kubeconfigs point at tenant-b's control plane",
		func(_ *testing.T, e *testenv.Env, c *suite.Config) {
			c.Tenants = map[string]*rest.Config{"tenant-a": e.RESTConfig("tenant-b"), "tenant-b": e.RESTConfig("tenant-b")}
		},
		"tenant tenant-a sees 20 allocatable nvidia.com/gpu in total, its own workers have 10", false},
	{"TC-09", "one of tenant-b's two cards is fully taken",
		func(t *testing.T, e *testenv.Env, _ *suite.Config) { intruder(t, e, "tenant-b", 1, 24576, 100) },
		"was declared unschedulable, want it bound", false},
	{"TC-10", "the double grants what a node has when a pod asks for more cards", faults(hamidouble.Faults{IgnoreCount: true}),
		"want it to stay Pending", false},
	{"TC-11", "the double treats binpack as spread", faults(hamidouble.Faults{IgnorePolicy: true}),
		"want the same card", false},
	{"TC-12", "the double ignores nvidia.com/use-gputype", faults(hamidouble.Faults{IgnoreTypeFilter: true}),
		"want it to stay Pending", false},
	{"TC-13", "the double never forgets deleted pods", faults(hamidouble.Faults{KeepDeletedUsage: true}),
		"fresh pods in a row were declared unschedulable, so the capacity was not released", true},
	{"TC-14", "tenant-b's node lock is held by a pod that never finishes binding",
		func(t *testing.T, e *testenv.Env, c *suite.Config) {
			c.Timeouts.Burst = 8 * time.Second
			holdLock(t, e, "tenant-b")
		},
		"0 of 10 pods were bound within 8s", false},
	{"TC-15", "both tenant kubeconfigs point at tenant-a's control plane",
		func(_ *testing.T, e *testenv.Env, c *suite.Config) {
			c.Tenants = map[string]*rest.Config{"tenant-a": e.RESTConfig("tenant-a"), "tenant-b": e.RESTConfig("tenant-a")}
		},
		"accepted tenant tenant-a's credentials", false},
	{"TC-16", "the double ignores card memory and cores", faults(hamidouble.Faults{IgnoreMemory: true, IgnoreCores: true}),
		"want it to stay Pending", false},
}

// Every case fails, with a message a person can act on, when the
// behaviour it checks is broken.
func TestCaseFailsWhenBehaviourIsWrong(t *testing.T) {
	e := needEnv(t)
	// Cases the seed lab's hardware cannot run are broken on other labs
	// (otherLabBreakages); every case is broken somewhere.
	broken := map[string]bool{}
	for _, bk := range append(append([]breakage(nil), breakages...), otherLabBreakages...) {
		broken[bk.id] = true
	}
	for _, c := range suite.Cases() {
		if !broken[c.ID] {
			t.Errorf("no breakage shows %s failing", c.ID)
		}
	}
	if len(breakages) != len(suite.Cases())-1 {
		t.Fatalf("%d breakages on the seed lab for %d cases it runs", len(breakages), len(suite.Cases())-1)
	}
	for _, bk := range breakages {
		t.Run(bk.id, func(t *testing.T) {
			e := e
			if bk.ownEnv {
				e = freshEnv(t)
			}
			cfg := config(e)
			cfg.Run = "^" + bk.id + "$"
			cfg.Timeouts = suite.Timeouts{Bind: 20 * time.Second, Verdict: 20 * time.Second, Delete: 30 * time.Second, Case: 2 * time.Minute}
			bk.setup(t, e, &cfg)
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
		})
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
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-broken-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ServiceAccounts(ns.Name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
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
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}},
			}}},
			Containers: []corev1.Container{{Name: "main", Image: suite.DefaultImage, Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
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

// freshEnv starts an environment for one test and stops it at its end.
func freshEnv(t *testing.T) *testenv.Env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	fe, err := testenv.Start(ctx, lab.Default(), testenv.Options{})
	if err != nil {
		t.Fatalf("start a separate local test environment: %v", err)
	}
	t.Cleanup(func() {
		if err := fe.Stop(); err != nil {
			t.Errorf("stop the separate environment: %v", err)
		}
	})
	return fe
}
