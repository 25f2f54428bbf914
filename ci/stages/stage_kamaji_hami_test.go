package stages

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// seedKamajiReady puts what Kamaji's release makes, ready, into the
// management cluster: its controller, its etcd and its DataStore.
func seedKamajiReady(ctx context.Context, mc *Clients) {
	mc.Kube.AppsV1().Deployments(KamajiNamespace).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: kamajiDeployment, Namespace: KamajiNamespace},
		Spec:       appsv1.DeploymentSpec{Replicas: i32(1)},
		Status:     appsv1.DeploymentStatus{AvailableReplicas: 1, UpdatedReplicas: 1},
	}, metav1.CreateOptions{})
	mc.Kube.AppsV1().StatefulSets(KamajiNamespace).Create(ctx, &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: kamajiEtcd, Namespace: KamajiNamespace},
		Spec:       appsv1.StatefulSetSpec{Replicas: i32(3)},
		Status:     appsv1.StatefulSetStatus{ReadyReplicas: 3},
	}, metav1.CreateOptions{})
	mc.Dynamic.(*dynamicfake.FakeDynamicClient).Tracker().Add(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kamaji.clastix.io/v1alpha1", "kind": "DataStore", "metadata": map[string]any{"name": "default"}}})
}

// okHelm records helm command lines and answers status as deployed.
// okHelm answers every call; the hami stage calls it from one goroutine a
// tenant, so calls is guarded.
type okHelm struct {
	mu    sync.Mutex
	calls []string
}

func (h *okHelm) Run(_ context.Context, kc string, args ...string) ([]byte, error) {
	h.mu.Lock()
	h.calls = append(h.calls, filepath.Base(kc)+": "+strings.Join(args, " "))
	h.mu.Unlock()
	if args[0] == "status" {
		return []byte(`{"name":"` + args[1] + `","info":{"status":"deployed"}}`), nil
	}
	return nil, nil
}

func TestKamajiStage(t *testing.T) {
	e, _, _, mc := managementUp(t)
	h := &okHelm{}
	e.Helm = h
	if done, _, _ := (kamajiStage{}).Check(context.Background(), e); done {
		t.Fatal("Check: done before anything is installed")
	}
	h.calls = nil
	ctx := context.Background()
	seedKamajiReady(ctx, mc)

	ran := &stepRecorder{}
	e.Steps = ran
	msg, err := kamajiStage{}.Run(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	ran.didWhatThePlanSays(t, func() (steps.Step, error) { return kamajiStage{}.steps(e, new(string)), nil })
	// Each install first reads the release's status (helmInstall).
	h.calls = slices.DeleteFunc(h.calls, func(c string) bool { return strings.HasPrefix(c, "management.yaml: status ") })
	if len(h.calls) != 2 || !strings.Contains(h.calls[0], "install cert-manager") || !strings.Contains(h.calls[1], "--version 0.0.0+latest") ||
		!strings.HasPrefix(h.calls[1], "management.yaml: ") {
		t.Errorf("helm calls = %q", h.calls)
	}
	if !strings.Contains(msg, "DataStore default present") {
		t.Errorf("summary = %s", msg)
	}
	if done, _, err := (kamajiStage{}).Check(ctx, e); err != nil || !done {
		t.Errorf("Check after Run = %v, %v", done, err)
	}
}

func TestHAMiStageWaitsForSchedulerAndWebhook(t *testing.T) {
	e, _, _, _ := managementUp(t)
	h := &okHelm{}
	e.Helm = h
	e.Timeouts.Rollout = 300 * time.Millisecond //: the webhook of tenant-b never gets its CA
	ctx := context.Background()
	e.clients = map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		node := e.Lab.NodeName(tn.Name, "worker")
		webhook := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: hamiWebhook},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "vgpu.hami.io"}}}
		if tn.Name == "tenant-a" {
			webhook.Webhooks[0].ClientConfig.CABundle = []byte("pem")
		}
		c := newFakeClients(
			&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}},
			readyDaemonSet(render.NVMLMockName, 1),
			&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: hamiScheduler, Namespace: render.HAMiNamespace},
				Spec: appsv1.DeploymentSpec{Replicas: i32(1)}, Status: appsv1.DeploymentStatus{AvailableReplicas: 1, UpdatedReplicas: 1}},
			webhook,
		)
		e.clients[tn.Name] = c
	}
	_, err := hamiStage{}.Run(ctx, e)
	if err == nil {
		t.Fatal("tenant-b's webhook has no CA bundle: want an error")
	}
	for _, part := range []string{"stage hami", "HAMi in tenant tenant-b", "vgpu.hami.io has no caBundle"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q lacks %q", err, part)
		}
	}
	for _, tn := range e.Lab.Tenants {
		n, _ := e.clients[tn.Name].Kube.CoreV1().Nodes().Get(ctx, e.Lab.NodeName(tn.Name, "worker"), metav1.GetOptions{})
		if n.Labels[gpus.LabelGPUNode] != gpus.LabelGPUOn {
			t.Errorf("%s: worker not labelled gpu=on", tn.Name)
		}
		vf := valuesFile(e, tn.Name)
		data, err := os.ReadFile(vf)
		if err != nil || !strings.Contains(string(data), "--node-lock-timeout=") {
			t.Errorf("values file %s: %v\n%s", vf, err, data)
		}
		// HAMi's own device plugin against the mock library, not the mock
		// plugin; HAMi reads the lab's device file.
		dev, _ := render.HAMiDeviceConfigYAML(e.Lab)
		var v render.HAMiValues
		if err := yaml.Unmarshal(data, &v); err != nil || v.MockDevicePlugin.Enabled || !v.DevicePlugin.Enabled ||
			v.DevicePlugin.NvidiaDriverRoot != render.NVMLMockDriverRoot || v.DeviceConfig.Content != string(dev) {
			t.Errorf("values file %s: want the device plugin on the mock library's driver root, the mock plugin off and"+
				" device-config.content the lab's device file (%v):\n%s", vf, err, data)
		}
	}
	// One install a tenant, in whichever order the tenants finished.
	calls := slices.Sorted(slices.Values(slices.DeleteFunc(h.calls, func(c string) bool { return strings.Contains(c, ".yaml: status ") })))
	if len(calls) != 2 || !strings.HasPrefix(calls[0], "tenant-a.yaml: upgrade --install hami hami") ||
		!strings.Contains(calls[1], "--values "+valuesFile(e, "tenant-b")) {
		t.Errorf("helm calls = %q", h.calls)
	}
}

func TestDiagnoseWritesTheBundle(t *testing.T) {
	e, d, _, _ := managementUp(t)
	k := e.Kind.(*fakeKind)
	k.exists = true
	rec := ownManagementNode(t, e, d)
	w := runningOn("gpu-lab-tenant-a-worker", "kind", "172.18.0.3")
	w.Config.Labels = ownedWorkerLabels(e, "tenant-a", rec.ID)
	d.containers["gpu-lab-tenant-a-worker"] = w
	d.execOut = func(string, []string) ([]byte, error) { return []byte("kubelet journal"), nil }
	kc := adminConf(t, "https://172.18.0.2:31443")
	if err := e.State.WriteKubeconfig("tenant-a", kc); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	err := Diagnose(context.Background(), e, &Error{Stage: stageWorkers, Object: "Node x", Condition: "Ready=False"}, dir)
	if err != nil {
		t.Logf("partial diagnostics (expected with fakes): %v", err)
	}
	for _, f := range []string{"error.txt", "management/tcp.yaml", "management/events.txt", "tenants/tenant-a/nodes.yaml",
		"tenants/tenant-a/events.txt", "workers/gpu-lab-tenant-a-worker.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("bundle lacks %s", f)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "error.txt"))
	if !strings.Contains(string(b), "stage workers: Node x (last seen: Ready=False)") {
		t.Errorf("error.txt = %s", b)
	}
	if !strings.Contains(strings.Join(k.calls, ","), "logs") {
		t.Error("kind logs not collected")
	}
	wl, _ := os.ReadFile(filepath.Join(dir, "workers/gpu-lab-tenant-a-worker.log"))
	if !strings.Contains(string(wl), "kubelet journal") {
		t.Errorf("worker log = %s", wl)
	}
}
