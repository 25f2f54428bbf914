package deviceplugin_test

import (
	"context"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// registrationLabs are the seed lab and ci/render's three-tenant lab (two
// workers on one tenant, several cards on one worker, a custom card).
func registrationLabs(t *testing.T) map[string]*lab.Lab {
	t.Helper()
	l3, err := lab.Load(filepath.Join("..", "..", "render", "testdata", "three-tenants.yaml"))
	if err != nil {
		t.Fatalf("load three-tenants lab: %v", err)
	}
	return map[string]*lab.Lab{"default": lab.Default(), "three-tenants": l3}
}

// TestRegistrationIsWhatTheRegistrarApplies: the manifest `labctl plan -o`
// shows for a GPU worker (Registration.Apply) is exactly what
// deviceplugin.RegisterNode leaves on a bare Node (the registrar patches status
// capacity and allocatable; HAMi reads allocatable).
func TestRegistrationIsWhatTheRegistrarApplies(t *testing.T) {
	for name, l := range registrationLabs(t) {
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
					r, err := render.WorkerRegistration(l, tn.Name, w.Name)
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
