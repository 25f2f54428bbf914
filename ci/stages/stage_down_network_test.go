package stages

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// kind never removes its network; Down removes the one this state dir's
// create made, and leaves one that was there before or that another
// container still uses (without failing).
func TestDownRemovesTheNetworkItsCreateMade(t *testing.T) {
	for _, tc := range []struct {
		name         string
		existed      bool
		refusal      error
		wantRemoved  bool
		wantRmCalled bool
	}{
		{name: "made by the create", wantRemoved: true, wantRmCalled: true},
		{name: "there before", existed: true},
		{name: "another container on it", refusal: errors.New("error while removing network: network kind has active endpoints"),
			wantRmCalled: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, d, k, _ := testEnv(t)
			d.images[e.Lab.Versions.KindNodeImage] = true
			k.kubeconfig = kubeconfigFor(t, map[string]string{"kind-gpu-lab": "https://127.0.0.1:40000"}, "kind-gpu-lab")
			d.noNetwork = !tc.existed
			if _, err := (clusterStage{}).Run(context.Background(), e); err != nil {
				t.Fatal(err)
			}
			d.noNetwork, d.removeNetworkErr = false, tc.refusal // kind made it
			removed, err := Down(context.Background(), e)
			if err != nil {
				t.Fatalf("Down: %v", err)
			}
			if got := slices.Contains(removed, "network kind"); got != tc.wantRemoved {
				t.Errorf("Down removed %v; network kind among them: %v, want %v", removed, got, tc.wantRemoved)
			}
			if got := d.networkRmCalls > 0; got != tc.wantRmCalled {
				t.Errorf("docker network rm called: %v, want %v", got, tc.wantRmCalled)
			}
		})
	}
}
