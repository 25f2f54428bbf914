package stages

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// hamiRunning is the seed lab with HAMi installed and ready in both
// tenants by the stage (its Check then says done), and the fake helm it
// installed with.
func hamiRunning(t *testing.T) (*Env, *okHelm) {
	t.Helper()
	e, _, _, _ := managementUp(t)
	h := &okHelm{}
	e.Helm = h
	e.clients = map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		e.clients[tn.Name] = hamiTenant(t, e, tn.Name, 1)
	}
	ctx := context.Background()
	if _, err := (hamiStage{}).Run(ctx, e); err != nil {
		t.Fatal(err)
	}
	if done, _, err := (hamiStage{}).Check(ctx, e); err != nil || !done {
		t.Fatalf("Check after the first Run = %v, %v; want done", done, err)
	}
	return e, h
}

// TestHAMiStageInstallsOnlyIntoAnAddedTenant: a running lab with HAMi in
// both tenants grows by tenant-c; the stage installs HAMi into tenant-c
// alone, leaves the running tenants' releases as they are, and says so.
func TestHAMiStageInstallsOnlyIntoAnAddedTenant(t *testing.T) {
	e, h := hamiRunning(t)
	ctx := context.Background()

	e.Lab.Tenants = append(e.Lab.Tenants, lab.Tenant{Name: "tenant-c", Workers: e.Lab.Tenants[1].Workers})
	e.clients["tenant-c"] = hamiTenant(t, e, "tenant-c", 1)
	if err := e.State.WriteKubeconfig("tenant-c", []byte("fake")); err != nil {
		t.Fatal(err)
	}
	h.calls = nil
	msg, err := (hamiStage{}).Run(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	var installs []string
	for _, c := range h.calls {
		if strings.Contains(c, "upgrade --install") {
			installs = append(installs, c)
		}
	}
	if len(installs) != 1 || !strings.HasPrefix(installs[0], "tenant-c.yaml: ") {
		t.Errorf("installs on the grown lab: %q, want tenant-c's alone", installs)
	}
	for _, want := range []string{"tenant-a: already there", "tenant-b: already there", "tenant-c: scheduler and webhook ready"} {
		if !strings.Contains(msg, want) {
			t.Errorf("summary %q lacks %q", msg, want)
		}
	}
}

// TestHAMiStageMakesAnAddedWorkerAGPUNode: a worker added to tenant-a of a
// running lab is labelled and gets the nvml-mock objects with its cards;
// no release is installed again, in tenant-a or anywhere else.
func TestHAMiStageMakesAnAddedWorkerAGPUNode(t *testing.T) {
	e, h := hamiRunning(t)
	ctx := context.Background()

	e.Lab.Tenants[0].Workers = append(e.Lab.Tenants[0].Workers, lab.Worker{Name: "worker2", GPUs: e.Lab.Tenants[0].Workers[0].GPUs})
	added := e.Lab.NodeName("tenant-a", "worker2")
	tc := e.clients["tenant-a"]
	if _, err := tc.Kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: added}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tc.Kube.AppsV1().DaemonSets(render.HAMiNamespace).UpdateStatus(ctx, readyDaemonSet(render.NVMLMockName, 2),
		metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if done, _, _ := (hamiStage{}).Check(ctx, e); done {
		t.Fatal("Check with an unlabelled added worker: done")
	}
	h.calls = nil
	msg, err := (hamiStage{}).Run(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range h.calls {
		if strings.Contains(c, "upgrade --install") {
			t.Errorf("helm %s: no release is installed again for an added worker", c)
		}
	}
	n, err := tc.Kube.CoreV1().Nodes().Get(ctx, added, metav1.GetOptions{})
	if err != nil || n.Labels[gpus.LabelGPUNode] != gpus.LabelGPUOn {
		t.Errorf("added worker's Node %v, %v: want it labelled %s=%s", n.Labels, err, gpus.LabelGPUNode, gpus.LabelGPUOn)
	}
	cm, err := tc.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).
		Namespace(render.HAMiNamespace).Get(ctx, render.NVMLMockName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if data, _, _ := unstructured.NestedStringMap(cm.Object, "data"); data[added+".yaml"] == "" {
		t.Errorf("nvml-mock ConfigMap keys %v lack the added worker's", keysOf(data))
	}
	for _, want := range []string{"tenant-a: scheduler and webhook ready", "tenant-b: already there"} {
		if !strings.Contains(msg, want) {
			t.Errorf("summary %q lacks %q", msg, want)
		}
	}
	if done, _, err := (hamiStage{}).Check(ctx, e); err != nil || !done {
		t.Errorf("Check after the added worker's Run = %v, %v; want done", done, err)
	}
}
