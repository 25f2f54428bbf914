package stages

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

// Down removes the lab: worker containers (by label), the kind cluster, and
// the state that describes them (the kubeconfigs, values and stage records
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
		return nil, fmt.Errorf("down: state dir %s was made by `%s`, which has no containers or cluster to remove", e.State, m.Kind.Command())
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
