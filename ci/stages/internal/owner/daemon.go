package owner

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// Docker is what ownership reads of a Docker daemon: the containers
// carrying a label, and each one's labels and ID.
type Docker interface {
	ListContainers(ctx context.Context, label string) ([]string, error)
	InspectContainer(ctx context.Context, name string) (docker.Container, error)
}

// KindNodes lists the containers kind counts as the cluster's nodes.
func KindNodes(ctx context.Context, d Docker, cluster string) ([]docker.Container, error) {
	names, err := d.ListContainers(ctx, KindClusterLabel+"="+cluster)
	if err != nil {
		return nil, fmt.Errorf("kind cluster %s: %w", cluster, err)
	}
	sort.Strings(names)
	var out []docker.Container
	for _, n := range names {
		c, err := d.InspectContainer(ctx, n)
		if docker.IsNotFound(err) {
			continue // removed since the listing
		}
		if err != nil {
			return nil, fmt.Errorf("kind cluster %s: %w", cluster, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// LookupKindCluster reports whether the kind cluster exists, with the
// owner record it read; it fails (ErrNotOwned, and false) when a cluster of
// that name exists that the state dir did not create (KindCluster).
func LookupKindCluster(ctx context.Context, d Docker, stateDir state.Dir, cluster string) (bool, Record, error) {
	nodes, err := KindNodes(ctx, d, cluster)
	if err != nil {
		return false, Record{}, err
	}
	rec, ok, err := Read(stateDir)
	if err != nil {
		return false, Record{}, err
	}
	owned, err := KindCluster(rec, ok, stateDir, cluster, nodes)
	return owned, rec, err
}

// Containers are the lab's containers labctl started from the state dir
// (owner and lab labels). Containers with the lab's label but another
// owner belong to another state dir.
func Containers(ctx context.Context, d Docker, stateDir state.Dir, labName string) ([]string, error) {
	rec, ok, err := Read(stateDir)
	if err != nil || !ok {
		return nil, err
	}
	names, err := d.ListContainers(ctx, Label+"="+rec.ID)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		c, err := d.InspectContainer(ctx, n)
		if docker.IsNotFound(err) {
			continue
		}
		if err != nil {
			return out, err
		}
		if c.Config.Labels[render.LabelLab] == labName && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}
