package testenv

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// checkTenantsReadyWithGPUWorkers: every tenant's API server is ready at
// the pinned version, and every lab worker is a Ready, untainted Node
// carrying the product GPU registration.
func checkTenantsReadyWithGPUWorkers(t *testing.T, e *Env) {
	ctx := context.Background()
	if got, want := e.Tenants(), []string{"tenant-a", "tenant-b"}; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("tenants = %v, want %v", got, want)
	}
	for _, ts := range e.Lab().Tenants {
		c := client(t, e, ts.Name)
		body, err := c.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil || string(body) != "ok" {
			t.Errorf("%s /readyz = %q, %v", ts.Name, body, err)
		}
		v, err := c.Discovery().ServerVersion()
		if err != nil {
			t.Fatalf("%s server version: %v", ts.Name, err)
		}
		if v.GitVersion != KubernetesVersion {
			t.Errorf("%s server version = %s, want %s", ts.Name, v.GitVersion, KubernetesVersion)
		}
		nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes.Items) != len(ts.Workers) {
			t.Errorf("%s has %d nodes, want %d (one per worker)", ts.Name, len(nodes.Items), len(ts.Workers))
		}
		for _, w := range ts.Workers {
			n, err := c.CoreV1().Nodes().Get(ctx, nodeName(ts.Name, w.Name), metav1.GetOptions{})
			if err != nil {
				t.Errorf("%s worker %s: %v", ts.Name, w.Name, err)
				continue
			}
			if !nodeReady(n) {
				t.Errorf("node %s is not Ready: %+v", n.Name, n.Status.Conditions)
			}
			if len(n.Spec.Taints) != 0 {
				t.Errorf("node %s has taints %v", n.Name, n.Spec.Taints)
			}
			// The four GPU resources the real lab's workers advertise, at
			// the inventory's values (what stage gpus gates on).
			for _, r := range gpus.Advertised(e.Lab(), ts.Name, w) {
				want := *resource.NewQuantity(r.Value, resource.DecimalSI)
				for field, list := range map[string]corev1.ResourceList{"capacity": n.Status.Capacity, "allocatable": n.Status.Allocatable} {
					if got := list[corev1.ResourceName(r.Name)]; got.Cmp(want) != 0 {
						t.Errorf("node %s %s %s = %s, want %s", n.Name, field, r.Name, got.String(), want.String())
					}
				}
			}
			devs, err := gpus.DecodeRegister(n.Annotations[gpus.AnnoRegister])
			if err != nil {
				t.Errorf("node %s: %v", n.Name, err)
			} else if len(devs) != len(w.Cards()) {
				t.Errorf("node %s registers %d cards, want %d", n.Name, len(devs), len(w.Cards()))
			}
		}
	}
}
