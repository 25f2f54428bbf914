package deviceplugin

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func patchCount(c *fake.Clientset) int {
	n := 0
	for _, a := range c.Actions() {
		if a.GetVerb() == "patch" {
			n++
		}
	}
	return n
}

func TestRegisterNode(t *testing.T) {
	l := lab.Default()
	tenant := l.Tenants[1] // tenant-b: two L4
	w := tenant.Workers[0]
	ctx := context.Background()
	// The simple clientset: NewClientset's tracker builds a REST mapper of
	// the whole scheme on every call; nothing here applies server-side.
	c := fake.NewSimpleClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-b"}})

	if err := RegisterNode(ctx, c, l, tenant.Name, w, "worker-b"); err != nil {
		t.Fatal(err)
	}
	node, err := c.CoreV1().Nodes().Get(ctx, "worker-b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	devs, err := gpus.DecodeRegister(node.Annotations[gpus.AnnoRegister])
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 2 || devs[0].Devmem != 24576 || devs[1].Index != 1 || !devs[0].Health || !strings.Contains(devs[0].Type, "NVIDIA") {
		t.Errorf("register annotation = %+v, want two healthy NVIDIA L4 cards of 24576 MB", devs)
	}
	if node.Labels[gpus.LabelGPUNode] != gpus.LabelGPUOn {
		t.Errorf("label %s = %q, want %q", gpus.LabelGPUNode, node.Labels[gpus.LabelGPUNode], gpus.LabelGPUOn)
	}
	// Two L4 of 24576 MB at split count 10: what the mock device plugin
	// v1.0.1 would have advertised (sums over the annotation's cards,
	// internal/pkg/api/device/nvidia/device.go:182-186) plus the count.
	wantAll := map[string]string{
		gpus.ResourceGPU:           "20",
		gpus.ResourceGPUMem:        "49152",
		gpus.ResourceGPUCores:      "200",
		gpus.ResourceGPUMemPercent: "200",
	}
	for name, list := range map[string]corev1.ResourceList{"capacity": node.Status.Capacity, "allocatable": node.Status.Allocatable} {
		for r, v := range wantAll {
			if q := list[corev1.ResourceName(r)]; q.Cmp(resource.MustParse(v)) != 0 {
				t.Errorf("status.%s[%s] = %s, want %s", name, r, q.String(), v)
			}
		}
	}
	want := resource.MustParse("20")

	// Idempotent: a second call writes nothing.
	before := patchCount(c)
	if err := RegisterNode(ctx, c, l, tenant.Name, w, "worker-b"); err != nil {
		t.Fatal(err)
	}
	if got := patchCount(c) - before; got != 0 {
		t.Errorf("second RegisterNode issued %d patches, want 0", got)
	}

	// A kubelet that re-registered zeroes every extended resource
	// (kubelet_node_status.go:192-206 at v1.36.4); each is corrected, and
	// the resources the kubelet owns are left alone.
	for r := range wantAll {
		node.Status.Capacity[corev1.ResourceName(r)] = resource.MustParse("0")
		node.Status.Allocatable[corev1.ResourceName(r)] = resource.MustParse("0")
	}
	node.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("8")
	if _, err := c.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := RegisterNode(ctx, c, l, tenant.Name, w, "worker-b"); err != nil {
		t.Fatal(err)
	}
	node, _ = c.CoreV1().Nodes().Get(ctx, "worker-b", metav1.GetOptions{})
	for r, v := range wantAll {
		if q := node.Status.Allocatable[corev1.ResourceName(r)]; q.Cmp(resource.MustParse(v)) != 0 {
			t.Errorf("after a zeroing kubelet, allocatable %s = %s, want %s", r, q.String(), v)
		}
		if q := node.Status.Capacity[corev1.ResourceName(r)]; q.Cmp(resource.MustParse(v)) != 0 {
			t.Errorf("after a zeroing kubelet, capacity %s = %s, want %s", r, q.String(), v)
		}
	}
	if q := node.Status.Allocatable[corev1.ResourceCPU]; q.Cmp(resource.MustParse("8")) != 0 {
		t.Errorf("allocatable cpu = %s after registration, want the kubelet's 8 kept", q.String())
	}
	// Only one of the four wrong is enough to write again.
	node.Status.Allocatable[gpus.ResourceGPUMemPercent] = resource.MustParse("100")
	if _, err := c.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := RegisterNode(ctx, c, l, tenant.Name, w, "worker-b"); err != nil {
		t.Fatal(err)
	}
	node, _ = c.CoreV1().Nodes().Get(ctx, "worker-b", metav1.GetOptions{})
	if q := node.Status.Allocatable[gpus.ResourceGPUMemPercent]; q.Cmp(resource.MustParse("200")) != 0 {
		t.Errorf("allocatable %s = %s after registration, want 200", gpus.ResourceGPUMemPercent, q.String())
	}
	if q := node.Status.Allocatable[gpus.ResourceGPU]; q.Cmp(want) != 0 {
		t.Errorf("allocatable %s = %s, want %s", gpus.ResourceGPU, q.String(), want.String())
	}
	var statusPatch bool
	for _, a := range c.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok && p.GetSubresource() == "status" {
			statusPatch = true
		}
	}
	if !statusPatch {
		t.Error("capacity was not written through the status subresource")
	}
}

func TestRegisterNodeErrors(t *testing.T) {
	l := lab.Default()
	ctx := context.Background()
	c := fake.NewSimpleClientset()
	err := RegisterNode(ctx, c, l, "tenant-a", l.Tenants[0].Workers[0], "missing-node")
	if err == nil || !strings.Contains(err.Error(), "missing-node") {
		t.Errorf("missing node: err = %v, want an error naming missing-node", err)
	}
	err = RegisterNode(ctx, c, l, "tenant-a", lab.Worker{Name: "bare"}, "n1")
	if err == nil || !strings.Contains(err.Error(), "n1") || !strings.Contains(err.Error(), "no GPUs") {
		t.Errorf("worker without GPUs: err = %v, want an error naming the node and saying it has no GPUs", err)
	}
}
