package stages

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// runningTenants gives the env's management cluster every tenant of
// running — its TenantControlPlane and labelled Namespace — and this state
// dir's worker containers and kubeconfig and values files.
func runningTenants(t *testing.T, e *Env, d *fakeDocker, mc *Clients, running *lab.Lab) {
	t.Helper()
	ctx := context.Background()
	rec, err := e.ensureOwner()
	if err != nil {
		t.Fatal(err)
	}
	for _, tn := range running.Tenants {
		tcp := tcpWith(nil)
		tcp.SetName(tn.Name)
		tcp.SetNamespace(render.TenantNamespace(tn.Name))
		if _, err := mc.Dynamic.Resource(tcpGVR).Namespace(tcp.GetNamespace()).Create(ctx, tcp, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := mc.Kube.CoreV1().Namespaces().Create(ctx, render.Namespace(running, tn.Name), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, w := range tn.Workers {
			n := running.NodeName(tn.Name, w.Name)
			c := runningOn(n, "kind", "172.18.0.9")
			c.Config.Labels = ownedWorkerLabels(e, tn.Name, rec.ID)
			d.containers[n] = c
		}
		must(t, e.State.WriteKubeconfig(tn.Name, []byte(tn.Name)))
		must(t, e.State.WriteValuesFile(valuesFile(e, tn.Name), []byte(tn.Name)))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestPruneRemovesOnlyTheRemovedTenant: the seed lab's file without
// tenant-b removes tenant-b's workers, control plane, namespace and state
// files, says so in that order, and leaves tenant-a's as they are.
func TestPruneRemovesOnlyTheRemovedTenant(t *testing.T) {
	e, d, _, mc := managementUp(t)
	running := lab.Default()
	runningTenants(t, e, d, mc, running)
	e.Lab.Tenants = e.Lab.Tenants[:1]
	c, err := lab.Changes(running, e.Lab)
	if err != nil {
		t.Fatal(err)
	}
	ran := &stepRecorder{}
	e.Steps = ran
	removed, err := Prune(context.Background(), e, c)
	if err != nil {
		t.Fatal(err)
	}
	ran.didWhatThePlanSays(t, func() (steps.Step, error) { return (&pruneRun{e: e, c: c}).steps(), nil })
	b := running.NodeName("tenant-b", "worker")
	want := []string{"container " + b, "TenantControlPlane tenant-b/tenant-b", "Namespace tenant-b",
		e.State.Values("hami-tenant-b.yaml"), e.State.Kubeconfig("tenant-b")} // the state dir's files deepest first
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q\nwant    %q", removed, want)
	}
	ctx := context.Background()
	if _, ok := d.containers[running.NodeName("tenant-a", "worker")]; !ok {
		t.Error("tenant-a's worker went too")
	}
	if _, err := mc.Dynamic.Resource(tcpGVR).Namespace("tenant-a").Get(ctx, "tenant-a", metav1.GetOptions{}); err != nil {
		t.Errorf("tenant-a's TenantControlPlane went too: %v", err)
	}
	if _, err := mc.Kube.CoreV1().Namespaces().Get(ctx, "tenant-a", metav1.GetOptions{}); err != nil {
		t.Errorf("tenant-a's Namespace went too: %v", err)
	}
	for _, p := range []string{e.State.Kubeconfig("tenant-a"), valuesFile(e, "tenant-a")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s went too: %v", p, err)
		}
	}
	// Run again (an interrupted up taken on): nothing is left to remove.
	if again, err := Prune(ctx, e, c); err != nil || len(again) > 0 {
		t.Errorf("Prune again: removed %q, %v; want nothing, no error", again, err)
	}
}

// TestPruneLeavesWhatItDidNotMake: a container of the removed tenant's
// name that this state dir did not start, and a namespace of its name
// without the tenants stage's labels, stay; the error names each.
func TestPruneLeavesWhatItDidNotMake(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(e *Env, d *fakeDocker, mc *Clients)
		want  string
	}{
		{"a container another state dir started", func(e *Env, d *fakeDocker, _ *Clients) {
			n := e.Lab.NodeName("tenant-b", "worker")
			c := d.containers[n]
			c.Config.Labels = ownedWorkerLabels(e, "tenant-b", "someone-else")
			d.containers[n] = c
		}, "stage prune: container gpu-lab-tenant-b-worker: "},
		{"a namespace without the lab's labels", func(_ *Env, _ *fakeDocker, mc *Clients) {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tenant-b"}}
			if _, err := mc.Kube.CoreV1().Namespaces().Update(context.Background(), ns, metav1.UpdateOptions{}); err != nil {
				panic(err)
			}
		}, "stage prune: Namespace tenant-b: not labelled gpu-lab.dev/lab=gpu-lab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, d, _, mc := managementUp(t)
			running := lab.Default()
			runningTenants(t, e, d, mc, running)
			tc.spoil(e, d, mc)
			e.Lab.Tenants = e.Lab.Tenants[:1]
			c, err := lab.Changes(running, e.Lab)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Prune(context.Background(), e, c)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "it stays") {
				t.Fatalf("Prune: %v; want an error containing %q and that it stays", err, tc.want)
			}
			_, inDocker := d.containers[running.NodeName("tenant-b", "worker")]
			_, nsErr := mc.Kube.CoreV1().Namespaces().Get(context.Background(), "tenant-b", metav1.GetOptions{})
			if strings.Contains(tc.want, "container") != inDocker || (strings.Contains(tc.want, "Namespace") && nsErr != nil) {
				t.Errorf("what it did not make went: container there %v, namespace %v", inDocker, nsErr)
			}
		})
	}
}

// TestPruneRemovesAWorkerOfARunningTenant: a worker removed from tenant-a
// loses its container and Node; the nvml-mock ConfigMap is applied
// without its cards; tenant-a's other worker and tenant-b stay.
func TestPruneRemovesAWorkerOfARunningTenant(t *testing.T) {
	e, d, _, mc := managementUp(t)
	running := lab.Default()
	running.Tenants[0].Workers = append(running.Tenants[0].Workers, lab.Worker{Name: "worker2", GPUs: running.Tenants[0].Workers[0].GPUs})
	runningTenants(t, e, d, mc, running)
	w1, w2 := running.NodeName("tenant-a", "worker"), running.NodeName("tenant-a", "worker2")
	podOn := func(name, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"}, Spec: corev1.PodSpec{NodeName: node}}
	}
	tc := newFakeClients(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: w1}}, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: w2}},
		podOn("nvml-mock-on-1", w1), podOn("nvml-mock-on-2", w2), podOn("kube-proxy-on-2", w2),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: render.NVMLMockName, Namespace: render.HAMiNamespace}},
		readyDaemonSet(render.NVMLMockName, 1))
	e.clients = map[string]*Clients{"tenant-a": tc}
	c, err := lab.Changes(running, e.Lab)
	if err != nil || c.String() != "removes worker(s) tenant-a/worker2" {
		t.Fatalf("Changes = %q, %v", c, err)
	}
	removed, err := Prune(context.Background(), e, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"container " + w2, "Node " + w2 + " in tenant tenant-a", "2 pod(s) bound to Node " + w2 + " in tenant tenant-a",
		"the removed workers' cards from ConfigMap " + render.HAMiNamespace + "/" + render.NVMLMockName + " in tenant tenant-a"}
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q\nwant    %q", removed, want)
	}
	ctx := context.Background()
	if _, err := tc.Kube.CoreV1().Nodes().Get(ctx, w1, metav1.GetOptions{}); err != nil {
		t.Errorf("Node %s went too: %v", w1, err)
	}
	if pods, err := tc.Kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{}); err != nil || len(pods.Items) != 1 ||
		pods.Items[0].Name != "nvml-mock-on-1" {
		t.Errorf("pods after the removal: %v, %v; want the one on %s alone", pods, err, w1)
	}
	for _, n := range []string{w1, running.NodeName("tenant-b", "worker")} {
		if _, ok := d.containers[n]; !ok {
			t.Errorf("container %s went too", n)
		}
	}
	cm, err := tc.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).
		Namespace(render.HAMiNamespace).Get(ctx, render.NVMLMockName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	if _, ok := data[w1+".yaml"]; !ok || len(data) != 1 {
		t.Errorf("nvml-mock ConfigMap keys %v, want %s.yaml alone", keysOf(data), w1)
	}
}

func keysOf(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
