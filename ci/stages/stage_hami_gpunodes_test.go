package stages

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

// installWatchingHelm records, at the moment HAMi's chart is installed into
// a tenant, whether that tenant's workers are GPU nodes: labelled, and the
// mock NVML library ready on each (what the chart's device plugin needs to
// start).
type installWatchingHelm struct {
	e         *Env
	mu        sync.Mutex
	atInstall map[string]string // tenant → gpuNodesReady condition
}

func (h *installWatchingHelm) Run(ctx context.Context, kc string, args ...string) ([]byte, error) {
	tenant := strings.TrimSuffix(filepath.Base(kc), ".yaml")
	switch args[0] {
	case "status":
		return []byte(`{"name":"` + args[1] + `","info":{"status":"deployed"},` +
			`"chart":{"metadata":{"version":"` + h.e.Lab.Versions.HAMiChart + `"}}}`), nil
	case "upgrade":
		_, cond, err := gpuNodesReady(ctx, h.e, h.e.clients[tenant], *h.e.Lab.Tenant(tenant))
		if err != nil {
			cond = err.Error()
		}
		h.mu.Lock()
		h.atInstall[tenant] = cond
		h.mu.Unlock()
	}
	return nil, nil
}

// hamiTenant is a tenant whose HAMi objects and nvml-mock DaemonSet report
// ready (ready is the nvml-mock DaemonSet's node count), with a bare
// worker Node.
func hamiTenant(t *testing.T, e *Env, tenant string, ready int32) *Clients {
	t.Helper()
	cfg, err := schedulerConfig(e)
	if err != nil {
		t.Fatal(err)
	}
	return newFakeClients(
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: e.Lab.NodeName(tenant, "worker")}},
		readyDaemonSet(render.NVMLMockName, ready),
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: hamiScheduler, Namespace: render.HAMiNamespace},
			Spec: appsv1.DeploymentSpec{Replicas: i32(1)}, Status: appsv1.DeploymentStatus{AvailableReplicas: 1, UpdatedReplicas: 1}},
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: hamiWebhook},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "vgpu.hami.io",
				ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: []byte("pem")}}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: render.HAMiSchedulerObject, Namespace: render.HAMiNamespace},
			Data: map[string]string{render.HAMiSchedulerConfigKey: string(cfg)}},
	)
}

// The chart's device plugin mounts the driver root with hostPath type
// Directory: when HAMi is installed, every worker is labelled gpu=on and
// the nvml-mock objects are applied and ready on it.
func TestHAMiStagePreparesGPUNodesBeforeInstall(t *testing.T) {
	e, _, _, _ := managementUp(t)
	h := &installWatchingHelm{e: e, atInstall: map[string]string{}}
	e.Helm = h
	e.clients = map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		e.clients[tn.Name] = hamiTenant(t, e, tn.Name, 1)
	}
	ctx := context.Background()
	if done, _, _ := (hamiStage{}).Check(ctx, e); done {
		t.Fatal("Check before Run: done, but no worker is labelled")
	}
	ran := &stepRecorder{}
	e.Steps = ran
	if _, err := (hamiStage{}).Run(ctx, e); err != nil {
		t.Fatal(err)
	}
	ran.didWhatThePlanSays(t, newHAMiRun(e).steps)
	for _, tn := range e.Lab.Tenants {
		if cond, installed := h.atInstall[tn.Name]; !installed || cond != "1/1 ready" {
			t.Errorf("%s: at helm install (installed %v) the GPU nodes were %q, want labelled and 1/1 ready", tn.Name, installed, cond)
		}
		for _, gvr := range []schema.GroupVersionResource{{Version: "v1", Resource: "configmaps"},
			{Group: "apps", Version: "v1", Resource: "daemonsets"}} {
			if _, err := e.clients[tn.Name].Dynamic.Resource(gvr).Namespace(render.HAMiNamespace).Get(ctx, render.NVMLMockName,
				metav1.GetOptions{}); err != nil {
				t.Errorf("%s: %s %s not applied: %v", tn.Name, gvr.Resource, render.NVMLMockName, err)
			}
		}
	}
	if done, why, err := (hamiStage{}).Check(ctx, e); err != nil || !done {
		t.Fatalf("Check after Run = %v (%s), %v", done, why, err)
	}
}

// A worker the nvml-mock DaemonSet does not reach fails the stage before
// HAMi is installed there, naming the DaemonSet and the tenant (tenant-a;
// tenant-b's workers are ready, and its install, side by side, may or may
// not have run when tenant-a's failure stops it).
func TestHAMiStageFailsWithoutTheMockLibrary(t *testing.T) {
	e, _, _, _ := managementUp(t)
	h := &installWatchingHelm{e: e, atInstall: map[string]string{}}
	e.Helm = h
	e.Timeouts.Rollout = 300 * time.Millisecond // a failure bound: nothing makes it ready
	e.clients = map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		ready := int32(1)
		if tn.Name == "tenant-a" {
			ready = 0
		}
		e.clients[tn.Name] = hamiTenant(t, e, tn.Name, ready)
	}
	_, err := (hamiStage{}).Run(context.Background(), e)
	if err == nil {
		t.Fatal("stage hami passed with the mock library on no worker")
	}
	for _, part := range []string{"stage hami", "DaemonSet kube-system/gpu-lab-nvml-mock in tenant tenant-a", "scheduled on no node"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q lacks %q", err, part)
		}
	}
	if cond, ok := h.atInstall["tenant-a"]; ok {
		t.Errorf("HAMi installed in tenant-a without the mock library (%s)", cond)
	}
}

// countGap names what the kubelet reports where it differs from the
// plugin's split × cards, and nothing when both fields hold it.
func TestCountGap(t *testing.T) {
	q := func(s string) corev1.ResourceList { return corev1.ResourceList{"nvidia.com/gpu": resourceQ(s)} }
	for _, tc := range []struct {
		name       string
		cap, alloc corev1.ResourceList
		want       string // "" for no gap
	}{
		{"both right", q("20"), q("20"), ""},
		{"allocatable short", q("20"), q("10"), "allocatable nvidia.com/gpu want 20, got 10"},
		{"absent", corev1.ResourceList{}, corev1.ResourceList{},
			"capacity nvidia.com/gpu want 20, got absent; allocatable nvidia.com/gpu want 20, got absent"},
		{"capacity over", q("30"), q("20"), "capacity nvidia.com/gpu want 20, got 30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Capacity: tc.cap, Allocatable: tc.alloc}}
			err := countGap("tenant-b", "worker", n, 20)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("gap %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), "tenant tenant-b worker worker (Node n1): "+tc.want+" (")):
				t.Errorf("gap %v, want %q", err, tc.want)
			}
		})
	}
}

func resourceQ(s string) resource.Quantity { return resource.MustParse(s) }
