package stages

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
)

// TestClusterStageAndDownLeaveAForeignKindCluster: a kind cluster of the
// lab's name that this state dir did not create (the user's `kind create
// cluster` when the lab is named kind, another checkout's lab, or a cluster
// recreated under the name after this state dir's was deleted) is neither
// adopted by the cluster stage nor deleted by Down; both say which cluster
// and what to do.
func TestClusterStageAndDownLeaveAForeignKindCluster(t *testing.T) {
	for _, tc := range []struct {
		name string
		// record writes what the state dir knows before the foreign cluster appears.
		record func(t *testing.T, e *Env)
		why    string
	}{
		{"a state dir that never made a cluster", func(*testing.T, *Env) {}, "no owner record"},
		{"this state dir's cluster was deleted and another took its name", func(t *testing.T, e *Env) {
			if err := owner.Write(e.State, owner.Record{ID: "owner1", KindCluster: e.Lab.Name,
				KindNodes: map[string]string{e.controlPlaneContainer(): "f00d"}}); err != nil {
				t.Fatal(err)
			}
		}, "is not one the state dir recorded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e, d, k, _ := testEnv(t)
			d.images[e.Lab.Versions.KindNodeImage] = true
			tc.record(t, e)
			foreign := d.kindNode(e.Lab.Name) // what kind makes for `kind create cluster --name gpu-lab`
			k.exists = true                   // and kind's name lookup sees it
			refusal := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, owner.ErrNotOwned) {
					t.Fatalf("%s: err = %v, want ErrNotOwned", what, err)
				}
				for _, part := range []string{"kind cluster gpu-lab", tc.why, "--state-dir", "kind delete cluster --name gpu-lab"} {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("%s: %q lacks %q", what, err, part)
					}
				}
			}
			done, _, err := clusterStage{}.Check(ctx, e)
			if done {
				t.Error("Check: the foreign cluster counts as the lab's")
			}
			refusal("Check", err)
			_, err = clusterStage{}.Run(ctx, e)
			refusal("Run", err)
			_, err = Down(ctx, e)
			refusal("Down", err)
			if len(k.calls) != 0 {
				t.Errorf("kind was asked to %v the foreign cluster", k.calls)
			}
			if c, ok := d.containers[e.controlPlaneContainer()]; !ok || c.ID != foreign.ID {
				t.Error("the foreign cluster's node container is gone")
			}
		})
	}
}
