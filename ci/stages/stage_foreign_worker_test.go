package stages

import (
	"context"
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
)

// TestWorkersRefuseAContainerTheyDidNotStart: a running container that has
// a worker's name but not the labels labctl gives its own workers (lab,
// tenant, this state dir's owner ID) is neither adopted nor touched: the
// stage stops naming it before any docker exec (kubeadm reset -f) or rm. The lab's own
// worker, left running by an earlier up, is adopted.
func TestWorkersRefuseAContainerTheyDidNotStart(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup puts a container in the way and returns its name.
		setup func(t *testing.T, e *Env, d *fakeDocker) string
		// refused is false for the lab's own worker.
		refused bool
	}{
		{"someone's container with the worker's name", func(t *testing.T, e *Env, d *fakeDocker) string {
			n := e.Lab.NodeName("tenant-a", "worker")
			d.containers[n] = runningOn(n, "kind", "172.18.0.7")
			return n
		}, true},
		{"the same lab name from another state dir", func(t *testing.T, e *Env, d *fakeDocker) string {
			n := e.Lab.NodeName("tenant-a", "worker")
			c := runningOn(n, "kind", "172.18.0.7")
			c.Config.Labels = ownedWorkerLabels(e, "tenant-a", "0123456789abcdef0123456789abcdef")
			d.containers[n] = c
			return n
		}, true},
		{"tenant control, worker plane: the management node", func(t *testing.T, e *Env, d *fakeDocker) string {
			e.Lab.Tenants[0].Name, e.Lab.Tenants[0].Workers[0].Name = "control", "plane"
			if err := e.State.WriteKubeconfig("control", adminConf(t, e.Reach.tenantServer("172.18.0.2",
				e.Lab.Tenants[0].Ports.APIServer))); err != nil {
				t.Fatal(err)
			}
			cp := d.kindNode(e.Lab.Name) // kind's labels on the management node
			if n := e.Lab.NodeName("control", "plane"); n != strings.TrimPrefix(cp.Name, "/") {
				t.Fatalf("worker name %s, want the management node's %s", n, cp.Name)
			}
			return e.controlPlaneContainer()
		}, true},
		{"the lab's own worker from an earlier up", func(t *testing.T, e *Env, d *fakeDocker) string {
			rec, err := e.ensureOwner()
			if err != nil {
				t.Fatal(err)
			}
			n := e.Lab.NodeName("tenant-a", "worker")
			c := runningOn(n, "kind", "172.18.0.7")
			c.Config.Labels = ownedWorkerLabels(e, "tenant-a", rec.ID)
			d.containers[n] = c
			return n
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _, _ := joiningEnv(t)
			d := e.Docker.(*fakeDocker)
			name := tc.setup(t, e, d)
			_, err := workersStage{}.Run(context.Background(), e)
			var touched []string
			for _, c := range d.calls {
				if strings.HasPrefix(c, "exec "+name+" ") || c == "rm "+name || c == "run "+name {
					touched = append(touched, c)
				}
			}
			if !tc.refused {
				if err != nil || len(touched) == 0 {
					t.Fatalf("own worker: err = %v, calls on it %q; want it adopted and joined", err, touched)
				}
				return
			}
			if !errors.Is(err, owner.ErrNotOwned) || !strings.Contains(err.Error(), "container "+name) {
				t.Fatalf("err = %v, want a refusal naming container %s", err, name)
			}
			if len(touched) != 0 {
				t.Errorf("labctl acted on %s, which it did not start: %q", name, touched)
			}
			if _, ok := d.containers[name]; !ok {
				t.Errorf("container %s is gone", name)
			}
		})
	}
}

// TestJoinRefusesAContainerItDidNotStart: the join itself (kubeadm reset -f,
// then join) checks the container again, before it writes a bootstrap
// token: the container may have been replaced since the stage started it.
func TestJoinRefusesAContainerItDidNotStart(t *testing.T) {
	e, _, clients := joiningEnv(t)
	d := e.Docker.(*fakeDocker)
	name := e.Lab.NodeName("tenant-a", "worker")
	d.containers[name] = runningOn(name, "kind", "172.18.0.7")
	err := joinWorker(context.Background(), e, clients["tenant-a"], e.Lab.Tenants[0], name, "172.18.0.2")
	if !errors.Is(err, owner.ErrNotOwned) {
		t.Fatalf("joinWorker = %v, want ErrNotOwned", err)
	}
	for _, c := range d.calls {
		if strings.HasPrefix(c, "exec "+name) {
			t.Errorf("ran %q in a container labctl did not start", c)
		}
	}
	secrets, err := clients["tenant-a"].Kube.CoreV1().Secrets("kube-system").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(secrets.Items) != 0 {
		t.Errorf("bootstrap tokens written for it: %d, %v", len(secrets.Items), err)
	}
}
