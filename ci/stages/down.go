package stages

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// Down removes the lab: worker containers (by label), the kind cluster, the
// Docker network kind made for it (when no one else's container is on it),
// and the state that describes them (the kubeconfigs, values and stage records
// labctl recorded writing). The resolved lab, the backend line and
// diagnostics bundles stay for post-mortems, and so does anything labctl
// did not write. A directory that is not a state dir of `labctl up` is
// refused before anything is touched. Removing what is already gone is not
// an error, so Down is idempotent.
func Down(ctx context.Context, e *Env) (removed []string, err error) {
	m, err := e.State.Marker()
	if err != nil {
		return nil, fmt.Errorf("down: %w", err)
	}
	if m.Kind != state.RealLab {
		return nil, fmt.Errorf("down: state dir %s was made by `%s`, which has no containers or cluster to remove",
			e.State, m.Kind.Command())
	}
	var errs []error
	names, lerr := e.ownedContainers(ctx)
	if lerr != nil {
		errs = append(errs, lerr)
	}
	for _, n := range names {
		if err := e.Docker.RemoveContainer(ctx, n); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, "container "+n)
	}
	exists, kerr := e.ownedKindCluster(ctx)
	if kerr != nil {
		errs = append(errs, kerr)
	}
	if exists {
		if err := e.Kind.Delete(ctx, e.Lab.Name, e.State.ManagementKubeconfig()); err != nil {
			errs = append(errs, err)
		} else {
			removed = append(removed, "kind cluster "+e.Lab.Name)
		}
	}
	if n, ok := e.removeKindNetwork(ctx); ok {
		removed = append(removed, "network "+n)
	}
	files, serr := e.State.RemoveLabState()
	if serr != nil {
		errs = append(errs, serr)
	}
	removed = append(removed, files...)
	if len(errs) > 0 {
		return removed, fmt.Errorf("down: %w", errors.Join(errs...))
	}
	return removed, nil
}

// removeKindNetwork removes the Docker network this state dir's cluster
// create made (owner.Record.KindNetwork). kind deletes a cluster but never
// its network, which every kind cluster of the daemon shares
// (sigs.k8s.io/kind@v0.33.0 pkg/cluster/internal/providers/docker/
// network.go: fixedNetworkName "kind", created when absent, no label); so
// one that existed before is left alone, and one another container still
// uses stays too (Docker refuses to remove it; the log says why), without
// failing Down.
func (e *Env) removeKindNetwork(ctx context.Context) (name string, removed bool) {
	rec, ok, err := owner.Read(e.State)
	if err != nil || !ok || rec.KindNetwork == "" {
		return "", false
	}
	if err := e.Docker.RemoveNetwork(ctx, rec.KindNetwork); err != nil {
		e.log().Info("left the Docker network kind made for the lab's cluster", "network", rec.KindNetwork, "why", err.Error())
		return "", false
	}
	return rec.KindNetwork, true
}
