package stages

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
)

// TestPreloadImportsOnlyIntoTheLabsOwnNodes: `labctl up --only STAGE
// --images DIR` preloads before the stage without the cluster or workers
// stage having looked at the nodes. A container named like a lab node that
// this state dir did not make — someone's container, another state dir's
// worker, a foreign kind cluster's node — is refused (owner.ErrNotOwned) before
// anything runs in it; the lab's own nodes still get their images.
func TestPreloadImportsOnlyIntoTheLabsOwnNodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup puts the nodes in place and returns the foreign one.
		setup func(t *testing.T, e *Env, d *fakeDocker) string
	}{
		{"someone's container with a worker's name", func(t *testing.T, e *Env, d *fakeDocker) string {
			ownManagementNode(t, e, d)
			n := e.Lab.NodeName("tenant-a", "worker")
			d.containers[n] = runningOn(n, "kind", "172.18.0.7")
			return n
		}},
		{"a worker of the same lab name from another state dir", func(t *testing.T, e *Env, d *fakeDocker) string {
			ownManagementNode(t, e, d)
			n := e.Lab.NodeName("tenant-a", "worker")
			c := runningOn(n, "kind", "172.18.0.7")
			c.Config.Labels = ownedWorkerLabels(e, "tenant-a", "0123456789abcdef0123456789abcdef")
			d.containers[n] = c
			return n
		}},
		{"a foreign kind cluster of the lab's name", func(t *testing.T, e *Env, d *fakeDocker) string {
			return d.kindNode(e.Lab.Name).Name[1:]
		}},
		{"a container with the management node's name, no kind cluster", func(t *testing.T, e *Env, d *fakeDocker) string {
			n := e.controlPlaneContainer()
			d.containers[n] = runningOn(n, "kind", "172.18.0.2")
			return n
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, d, n := bundledEnv(t)
			foreign := tc.setup(t, e, d)
			var refused error
			// Every stage's preloads: the Runner's (release "") and a
			// stage's own, of one release's images (kamaji.go).
			for _, i := range e.Preload.Images {
				if err := e.preloadStage(context.Background(), i.Stage, i.Release, true); err != nil {
					refused = err
					break
				}
			}
			if refused == nil || !strings.Contains(refused.Error(), foreign) {
				t.Fatalf("err = %v, want the preload into %s refused", refused, foreign)
			}
			if !errors.Is(refused, owner.ErrNotOwned) && !strings.Contains(refused.Error(), "does not exist") {
				t.Errorf("err = %v, want ErrNotOwned or the missing cluster named", refused)
			}
			for _, c := range d.calls {
				if strings.HasPrefix(c, "exec "+foreign+" ") {
					t.Errorf("ran in %s, which this state dir did not make: %s", foreign, c)
				}
			}
			for _, ev := range n.events {
				if strings.HasPrefix(ev, "import "+foreign+" ") {
					t.Errorf("imported into %s: %s", foreign, ev)
				}
			}
		})
	}
}
