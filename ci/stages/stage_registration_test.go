package stages

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// installWatchingHelm records, at the moment HAMi's chart is installed into a
// tenant, whether that tenant's workers already carry their GPU registration:
// what HAMi's scheduler finds in its first registration pass.
type installWatchingHelm struct {
	e         *Env
	mu        sync.Mutex
	atInstall map[string]string // tenant → registrationPresent condition
}

func (h *installWatchingHelm) Run(ctx context.Context, kc string, args ...string) ([]byte, error) {
	tenant := strings.TrimSuffix(filepath.Base(kc), ".yaml")
	switch args[0] {
	case "status":
		return []byte(`{"name":"` + args[1] + `","info":{"status":"deployed"},"chart":{"metadata":{"version":"` + h.e.Lab.Versions.HAMiChart + `"}}}`), nil
	case "upgrade":
		tc := h.e.clients[tenant]
		t := h.e.Lab.Tenant(tenant)
		_, cond, err := workersRegistered(ctx, h.e, tc, *t)
		if err != nil {
			cond = err.Error()
		}
		h.mu.Lock()
		h.atInstall[tenant] = cond
		h.mu.Unlock()
	}
	return nil, nil
}

// hamiTenant is a tenant whose HAMi objects report ready, with a bare worker
// Node (joined, nothing registered yet).
func hamiTenant(t *testing.T, e *Env, tenant string) *Clients {
	t.Helper()
	node := e.Lab.NodeName(tenant, "worker")
	cfg, err := schedulerConfig(e)
	if err != nil {
		t.Fatal(err)
	}
	return newFakeClients(
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: hamiScheduler, Namespace: render.HAMiNamespace},
			Spec: appsv1.DeploymentSpec{Replicas: i32(1)}, Status: appsv1.DeploymentStatus{AvailableReplicas: 1, UpdatedReplicas: 1}},
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: hamiWebhook},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "vgpu.hami.io", ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: []byte("pem")}}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: render.HAMiSchedulerObject, Namespace: render.HAMiNamespace},
			Data: map[string]string{render.HAMiSchedulerConfigKey: string(cfg)}},
	)
}

// TestHAMiStageRegistersGPUsBeforeInstall: HAMi registers a node's cards only
// in a pass at Node add, leadership or its 15 s tick (registration.go), so
// the registration must be on the Nodes when the chart is installed.
func TestHAMiStageRegistersGPUsBeforeInstall(t *testing.T) {
	e, _, _, _ := managementUp(t)
	h := &installWatchingHelm{e: e, atInstall: map[string]string{}}
	e.Helm = h
	e.clients = map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		e.clients[tn.Name] = hamiTenant(t, e, tn.Name)
	}
	ctx := context.Background()
	if done, _, _ := (hamiStage{}).Check(ctx, e); done {
		t.Fatal("Check before Run: done, but no worker is registered")
	}
	if _, err := (hamiStage{}).Run(ctx, e); err != nil {
		t.Fatal(err)
	}
	for _, tn := range e.Lab.Tenants {
		cond, installed := h.atInstall[tn.Name]
		if !installed {
			t.Errorf("%s: HAMi not installed", tn.Name)
			continue
		}
		if cond != "GPUs registered on every worker" {
			t.Errorf("%s: at helm install the workers were not registered: %s", tn.Name, cond)
		}
	}
	if done, why, err := (hamiStage{}).Check(ctx, e); err != nil || !done {
		t.Fatalf("Check after Run = %v (%s), %v", done, why, err)
	}

	// A kubelet that re-registered zeroes the count it has no device plugin
	// for: the stage is then not done, and a new Run writes it back.
	node := e.Lab.NodeName("tenant-b", "worker")
	kube := e.clients["tenant-b"].Kube
	n, _ := kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	n.Status.Allocatable[gpus.ResourceGPU] = resource.MustParse("0")
	if _, err := kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if done, _, _ := (hamiStage{}).Check(ctx, e); done {
		t.Error("Check with allocatable zeroed on a worker: done, want not done")
	}
}

func TestRegistrationPresent(t *testing.T) {
	reg, err := render.WorkerRegistration(lab.Default(), "tenant-b", "worker")
	if err != nil {
		t.Fatal(err)
	}
	registered := func() *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: reg.NodeName,
				Labels:      map[string]string{gpus.LabelGPUNode: gpus.LabelGPUOn, "kubernetes.io/hostname": reg.NodeName},
				Annotations: map[string]string{gpus.AnnoRegister: reg.Annotations[gpus.AnnoRegister], gpus.AnnoHandshake: "Requesting_2026-11-30 23:04:19"}},
			Status: corev1.NodeStatus{
				Capacity: corev1.ResourceList{gpus.ResourceGPU: resource.MustParse("20"), corev1.ResourceCPU: resource.MustParse("2"),
					gpus.ResourceGPUMem: resource.MustParse("49152"), gpus.ResourceGPUCores: resource.MustParse("200"), gpus.ResourceGPUMemPercent: resource.MustParse("200")},
				Allocatable: corev1.ResourceList{gpus.ResourceGPU: resource.MustParse("20"),
					gpus.ResourceGPUMem: resource.MustParse("49152"), gpus.ResourceGPUCores: resource.MustParse("200"), gpus.ResourceGPUMemPercent: resource.MustParse("200")},
			},
		}
	}
	tests := []struct {
		name   string
		mutate func(*corev1.Node)
		ok     bool
		cond   string
	}{
		{"registered, other keys ignored", func(*corev1.Node) {}, true, "registered"},
		{"no label", func(n *corev1.Node) { delete(n.Labels, gpus.LabelGPUNode) }, false, `label gpu="", want "on"`},
		{"other cards", func(n *corev1.Node) { n.Annotations[gpus.AnnoRegister] = "[]" }, false, "annotation " + gpus.AnnoRegister + " differs"},
		{"allocatable missing", func(n *corev1.Node) { n.Status.Allocatable = nil }, false, "status.allocatable nvidia.com/gpu=0, want 20"},
		{"capacity zeroed", func(n *corev1.Node) { n.Status.Capacity[gpus.ResourceGPU] = resource.MustParse("0") }, false, "status.capacity nvidia.com/gpu=0, want 20"},
		{"memory zeroed by a kubelet", func(n *corev1.Node) { n.Status.Allocatable[gpus.ResourceGPUMem] = resource.MustParse("0") }, false, "status.allocatable nvidia.com/gpumem=0, want 49152"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := registered()
			tt.mutate(n)
			ok, cond := registrationPresent(n, reg)
			if ok != tt.ok || !strings.Contains(cond, tt.cond) {
				t.Errorf("registrationPresent = %v, %q; want %v, containing %q", ok, cond, tt.ok, tt.cond)
			}
		})
	}
}

// TestPlanRegistersBeforeHAMiAndGatesAfter: --dry-run shows the order the
// stages run in: the Node patches before the helm install, the metrics gate
// last.
func TestPlanRegistersBeforeHAMiAndGatesAfter(t *testing.T) {
	e, _, _, _ := testEnv(t)
	hami, err := hamiStage{}.Plan(e)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(hami, "\n")
	patch := strings.Index(text, "tenant tenant-b: patch Node gpu-lab-tenant-b-worker before HAMi starts")
	install := strings.Index(text, "helm --kubeconfig "+e.State.Kubeconfig("tenant-b"))
	if patch < 0 || install < 0 || patch > install {
		t.Errorf("hami plan: registration at %d, install at %d; want the registration first:\n%s", patch, install, text)
	}
	if !strings.Contains(text, "status capacity+allocatable nvidia.com/gpu=20 nvidia.com/gpumem=49152 nvidia.com/gpucores=200 nvidia.com/gpumem-percentage=200") {
		t.Errorf("hami plan lacks the four GPU resources in capacity and allocatable:\n%s", text)
	}
	if strings.Contains(text, "DaemonSet") {
		t.Errorf("hami plan still waits for a device-plugin DaemonSet:\n%s", text)
	}
	g, err := gpusStage{}.Plan(e)
	if err != nil {
		t.Fatal(err)
	}
	text = strings.Join(g, "\n")
	if strings.Contains(text, "patch Node") {
		t.Errorf("gpus plan still patches Nodes:\n%s", text)
	}
	if !strings.Contains(text, "until "+gpus.MetricMemoryLimit+" lists every card UUID") {
		t.Errorf("gpus plan lacks the metrics gate:\n%s", text)
	}
	if !strings.Contains(text, "Node allocatable nvidia.com/gpu, nvidia.com/gpumem, nvidia.com/gpucores and nvidia.com/gpumem-percentage equal to the inventory's") {
		t.Errorf("gpus plan lacks the allocatable gate:\n%s", text)
	}
}
