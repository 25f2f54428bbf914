package stages

import (
	"context"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
)

// Ownership (ci/stages/internal/owner says why): labctl adopts, runs
// commands in, or deletes only what it created from this state directory.
// What follows asks it of this Env's state dir, lab and daemon.

// ensureOwner returns the state dir's record, creating it (a new ID) when
// the state dir has none.
func (e *Env) ensureOwner() (owner.Record, error) { return owner.Ensure(e.State) }

// ownedWorkerLabels are the labels of a worker labctl starts: lab, tenant
// (workerLabels) and this state dir's owner ID.
func ownedWorkerLabels(e *Env, tenant, ownerID string) map[string]string {
	l := workerLabels(e.Lab, tenant)
	l[owner.Label] = ownerID
	return l
}

// kindNodes lists the containers kind counts as the cluster's nodes.
func (e *Env) kindNodes(ctx context.Context, cluster string) ([]docker.Container, error) {
	return owner.KindNodes(ctx, e.Docker, cluster)
}

// ownedKindCluster reports whether the lab's kind cluster exists; it fails
// (owner.ErrNotOwned, and false) when a cluster of the lab's name exists that
// this state dir did not create. It is what the cluster stage and Down ask instead of
// kind's name lookup.
func (e *Env) ownedKindCluster(ctx context.Context) (bool, error) {
	owned, _, err := e.ownedKindClusterRecord(ctx)
	return owned, err
}

// ownedKindClusterRecord is ownedKindCluster with the owner record it read.
func (e *Env) ownedKindClusterRecord(ctx context.Context) (bool, owner.Record, error) {
	return owner.LookupKindCluster(ctx, e.Docker, e.State, e.Lab.Name)
}

// ownedContainers are the lab's containers labctl started from this state
// dir (owner and lab labels): the ones Down removes.
func (e *Env) ownedContainers(ctx context.Context) ([]string, error) {
	return owner.Containers(ctx, e.Docker, e.State, e.Lab.Name)
}

// workerOwned is owner.Worker with this state dir's record: nil when
// labctl may run commands in the existing container c as tenant's worker.
func (e *Env) workerOwned(c docker.Container, tenant string) error {
	rec, ok, err := owner.Read(e.State)
	if err != nil {
		return err
	}
	return owner.Worker(rec, ok, e.State, e.Lab.Name, tenant, c)
}
