package stages

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Down removes the lab: worker containers (by label), the kind cluster, and
// the state that describes them (kubeconfigs, stage records, values).
// Diagnostics bundles and lab.yaml stay for post-mortems. Removing what is
// already gone is not an error, so Down is idempotent.
func Down(ctx context.Context, e *Env) (removed []string, err error) {
	var errs []error
	names, lerr := e.OwnedContainers(ctx)
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
	exists, kerr := e.OwnedKindCluster(ctx)
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
	for _, p := range []string{
		filepath.Join(string(e.State), "kubeconfigs"),
		filepath.Join(string(e.State), "values"),
		filepath.Join(string(e.State), "stages.json"),
	} {
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("down: %w", errors.Join(errs...))
	}
	return removed, nil
}
