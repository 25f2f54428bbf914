package render

import (
	"context"
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
)

func TestWorkerRegistrationSeedLab(t *testing.T) {
	l := testLabs(t)["default"]
	for _, tc := range []struct {
		tenant   string
		cards    int
		memMB    int
		typ      string
		capacity int64
	}{
		{"tenant-a", 1, 81920, "NVIDIA-A100-SXM4-80GB", 10},
		{"tenant-b", 2, 24576, "NVIDIA-L4", 20},
	} {
		r, err := WorkerRegistration(l, tc.tenant, "worker")
		if err != nil {
			t.Fatal(err)
		}
		devs, err := gpus.DecodeRegister(r.Annotations[gpus.AnnoRegister])
		if err != nil {
			t.Fatal(err)
		}
		if len(devs) != tc.cards {
			t.Fatalf("%s: %d cards registered, want %d", tc.tenant, len(devs), tc.cards)
		}
		for i, d := range devs {
			if d.Devmem != tc.memMB || d.Type != tc.typ || !d.Health || d.Index != i || d.Count != l.HAMi.SplitCount {
				t.Errorf("%s card %d: %+v", tc.tenant, i, d)
			}
		}
		if q := r.Capacity[gpus.ResourceGPU]; q.Value() != tc.capacity {
			t.Errorf("%s: capacity %s, want %d", tc.tenant, q.String(), tc.capacity)
		}
		if r.NodeName != "gpu-lab-"+tc.tenant+"-worker" || r.Labels[gpus.LabelGPUNode] != gpus.LabelGPUOn {
			t.Errorf("%s: node %q labels %v", tc.tenant, r.NodeName, r.Labels)
		}
		var patch struct {
			Status struct {
				Capacity    map[string]string `json:"capacity"`
				Allocatable map[string]string `json:"allocatable"`
			} `json:"status"`
		}
		sp, _ := r.StatusPatch()
		if err := json.Unmarshal(sp, &patch); err != nil || patch.Status.Capacity[gpus.ResourceGPU] == "" || patch.Status.Allocatable[gpus.ResourceGPU] != patch.Status.Capacity[gpus.ResourceGPU] {
			t.Errorf("%s: status patch %s (%v), want capacity and allocatable", tc.tenant, sp, err)
		}
		var meta struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		mp, _ := r.MetadataPatch()
		if err := json.Unmarshal(mp, &meta); err != nil || meta.Metadata.Annotations[gpus.AnnoRegister] != r.Annotations[gpus.AnnoRegister] {
			t.Errorf("%s: metadata patch %s (%v)", tc.tenant, mp, err)
		}
	}
	if _, err := WorkerRegistration(l, "tenant-a", "nope"); err == nil {
		t.Error("unknown worker: no error")
	}
}

// TestRegistrationIsWhatTheRegistrarApplies: the manifest `labctl plan -o`
// shows for a GPU worker (Registration.Apply) is exactly what
// deviceplugin.RegisterNode leaves on a bare Node (the registrar patches status
// capacity and allocatable; HAMi reads allocatable).
func TestRegistrationIsWhatTheRegistrarApplies(t *testing.T) {
	for name, l := range testLabs(t) {
		for _, tn := range l.Tenants {
			for _, w := range tn.Workers {
				if len(w.Cards()) == 0 {
					continue
				}
				node := l.NodeName(tn.Name, w.Name)
				t.Run(name+"/"+node, func(t *testing.T) {
					ctx := context.Background()
					// The simple clientset: NewClientset's tracker builds a REST mapper of
					// the whole scheme on every call; nothing here applies server-side.
					c := fake.NewSimpleClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}})
					if err := deviceplugin.RegisterNode(ctx, c, l, tn.Name, w, node); err != nil {
						t.Fatal(err)
					}
					n, err := c.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					applied := applycorev1.Node(n.Name).WithLabels(n.Labels).WithAnnotations(n.Annotations).
						WithStatus(applycorev1.NodeStatus().WithCapacity(n.Status.Capacity).WithAllocatable(n.Status.Allocatable))
					r, err := WorkerRegistration(l, tn.Name, w.Name)
					if err != nil {
						t.Fatal(err)
					}
					got, _ := yaml.Marshal(r.Apply())
					want, _ := yaml.Marshal(applied)
					if string(got) != string(want) {
						t.Errorf("rendered registration differs from what the registrar applied\n--- rendered ---\n%s--- applied ---\n%s", got, want)
					}
				})
			}
		}
	}
}
