package suite

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// countedNode is a seed-lab worker Node whose status holds the given
// resources in capacity and allocatable ("" leaves a field out).
func countedNode(name, capGPU, allocGPU, capMem string) *corev1.Node {
	list := func(pairs ...string) corev1.ResourceList {
		out := corev1.ResourceList{}
		for i := 0; i < len(pairs); i += 2 {
			if pairs[i+1] != "" {
				out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
			}
		}
		return out
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{
		Capacity:    list("nvidia.com/gpu", capGPU, "nvidia.com/gpumem", capMem),
		Allocatable: list("nvidia.com/gpu", allocGPU),
	}}
}

func pluginDaemonSet() *appsv1.DaemonSet {
	return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "hami-device-plugin", Namespace: "kube-system"}}
}

// TC-20 on the seed lab (tenant-a: 1 card, tenant-b: 2 cards, split 10):
// passed where the plugin runs and the kubelet counts its devices, failed
// naming the node and field otherwise, skipped with its reason where no
// tenant runs the plugin, as in the local test environment.
func TestTC20(t *testing.T) {
	a, b := "gpu-lab-tenant-a-worker", "gpu-lab-tenant-b-worker"
	for _, tc := range []struct {
		name   string
		objs   map[string][]runtime.Object
		status results.Status
		msg    string
	}{
		{"the kubelet counts the plugin's devices", map[string][]runtime.Object{
			"tenant-a": {pluginDaemonSet(), countedNode(a, "10", "10", "")},
			"tenant-b": {pluginDaemonSet(), countedNode(b, "20", "20", "")},
		}, results.Passed, ""},
		{"no plugin anywhere", map[string][]runtime.Object{
			"tenant-a": {countedNode(a, "10", "10", "81920")},
			"tenant-b": {countedNode(b, "20", "20", "49152")},
		}, results.Skipped, "skipped: no tenant runs HAMi's device plugin"},
		{"plugin in one tenant only", map[string][]runtime.Object{
			"tenant-a": {pluginDaemonSet(), countedNode(a, "10", "10", "")},
			"tenant-b": {countedNode(b, "20", "20", "")},
		}, results.Failed, "tenant(s) tenant-a run HAMi's device plugin, tenant(s) tenant-b do not"},
		{"allocatable short", map[string][]runtime.Object{
			"tenant-a": {pluginDaemonSet(), countedNode(a, "10", "10", "")},
			"tenant-b": {pluginDaemonSet(), countedNode(b, "20", "10", "")},
		}, results.Failed, "tenant tenant-b worker worker: node gpu-lab-tenant-b-worker: allocatable nvidia.com/gpu 10, want 20"},
		{"count absent", map[string][]runtime.Object{
			"tenant-a": {pluginDaemonSet(), countedNode(a, "", "", "")},
			"tenant-b": {pluginDaemonSet(), countedNode(b, "20", "20", "")},
		}, results.Failed, "capacity nvidia.com/gpu absent, want 10; allocatable nvidia.com/gpu absent, want 10"},
		{"another writer of the status", map[string][]runtime.Object{
			"tenant-a": {pluginDaemonSet(), countedNode(a, "10", "10", "81920")},
			"tenant-b": {pluginDaemonSet(), countedNode(b, "20", "20", "")},
		}, results.Failed, "capacity nvidia.com/gpumem 81920: HAMi's device plugin registers no such resource"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := fakeRunner(tc.objs)
			r.tm.Case, r.tm.Cleanup = 10*time.Second, time.Second // failure bounds
			c := &caseRun{Case: caseByID("TC-20"), tenants: r.cfg.Lab.TenantNames(), run: r.tc20}
			res := results.Case{ID: c.ID, Started: time.Now()}
			r.runCase(context.Background(), c, &lane{}, &res)
			if res.Status != tc.status || !strings.Contains(res.Message, tc.msg) {
				t.Errorf("TC-20 %s: %q, want %s containing %q", res.Status, res.Message, tc.status, tc.msg)
			}
			if tc.status == results.Passed && len(res.Steps) != 2 {
				t.Errorf("steps %v, want one per worker", res.Steps)
			}
		})
	}
}
