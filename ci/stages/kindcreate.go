package stages

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
)

// kindNodePoll is how often the node containers of a kind cluster being
// created are looked for, until as many as its config names are recorded
// (kind makes them all in its first step, within seconds).
const kindNodePoll = 200 * time.Millisecond

// createOwnedKindCluster creates the kind cluster with the owner ID on its
// Nodes and records its node containers' IDs in the state dir.
//
// The record says the create is pending before kind starts, and each node
// container is recorded as soon as Docker lists it, not only after kind
// returns: a labctl killed while kind ran (the rehearsal's
// cluster:KILL+25s, 2026-12-07) otherwise left a cluster no state dir
// recorded, which the next `up` and `down` refused to touch. Every
// container with the cluster's label that appears while this create runs
// is kind's: kind v0.33.0 refuses to start when any container carries the
// label (alreadyExists, pkg/cluster/internal/create/create.go:81,177-178).
// A create that fails keeps its record pending: kind deletes what it made
// (create.go:104-106,137-139), and whatever it could not delete is still
// this state dir's to remove.
func (e *Env) createOwnedKindCluster(ctx context.Context, cfg *kind.Cluster) error {
	rec, err := e.ensureOwner()
	if err != nil {
		return err
	}
	for i := range cfg.Nodes {
		if cfg.Nodes[i].Labels == nil {
			cfg.Nodes[i].Labels = map[string]string{}
		}
		cfg.Nodes[i].Labels[owner.Label] = rec.ID
	}
	kubeconfig, err := e.State.ManagementKubeconfigForKind()
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	rec.KindCluster, rec.KindNodes, rec.KindPending = cfg.Name, map[string]string{}, true
	if _, err := e.Docker.InspectNetwork(ctx, e.Network); docker.IsNotFound(err) {
		rec.KindNetwork = e.Network
	}
	if err := owner.Write(e.State, rec); err != nil {
		return fmt.Errorf("kind cluster %s: %w", cfg.Name, err)
	}
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	recorded := make(chan owner.Record, 1)
	go func() { recorded <- e.recordKindNodes(rctx, rec, len(cfg.Nodes)) }()
	err = e.Kind.Create(ctx, cfg, kubeconfig)
	stop()
	rec = <-recorded
	if err != nil {
		return bindHint(e.Reach, err)
	}
	nodes, err := e.kindNodes(context.WithoutCancel(ctx), cfg.Name)
	if err != nil {
		return fmt.Errorf("record the new cluster's node containers: %w", err)
	}
	if len(nodes) == 0 {
		return fmt.Errorf("kind cluster %s: kind reported success but Docker lists no container labelled %s=%s",
			cfg.Name, owner.KindClusterLabel, cfg.Name)
	}
	rec.KindNodes, rec.KindPending = map[string]string{}, false
	for _, n := range nodes {
		rec.KindNodes[strings.TrimPrefix(n.Name, "/")] = n.ID
	}
	if err := owner.Write(e.State, rec); err != nil {
		return fmt.Errorf("kind cluster %s was created but not recorded as this state dir's (remove it with `kind "+
			"delete cluster --name %s`): %w", cfg.Name, cfg.Name, err)
	}
	return nil
}

// recordKindNodes adds each node container of rec.KindCluster Docker lists
// to the record, writing it whenever one is added, until want are recorded
// or ctx ends; it returns the record as last written. A failed listing or
// write is tried again at the next poll: the create goes on regardless, and
// its end records the nodes again.
func (e *Env) recordKindNodes(ctx context.Context, rec owner.Record, want int) owner.Record {
	t := time.NewTicker(kindNodePoll)
	defer t.Stop()
	for len(rec.KindNodes) < want {
		if nodes, err := e.kindNodes(ctx, rec.KindCluster); err == nil {
			next := rec
			next.KindNodes = map[string]string{}
			maps.Copy(next.KindNodes, rec.KindNodes)
			for _, n := range nodes {
				next.KindNodes[strings.TrimPrefix(n.Name, "/")] = n.ID
			}
			if len(next.KindNodes) > len(rec.KindNodes) && owner.Write(e.State, next) == nil {
				rec = next
			}
		}
		select {
		case <-ctx.Done():
			return rec
		case <-t.C:
		}
	}
	return rec
}

// kindClusterState is ownedKindCluster with whether the cluster's create
// never finished (a labctl killed while kind ran): such a cluster is this
// state dir's to delete, never to build on.
func (e *Env) kindClusterState(ctx context.Context) (owned, pending bool, err error) {
	owned, rec, err := e.ownedKindClusterRecord(ctx)
	if err != nil || !owned {
		return owned, false, err
	}
	return true, rec.KindPending && rec.KindCluster == e.Lab.Name, nil
}

// deleteHalfMadeCluster removes the lab's kind cluster whose create an
// interrupted labctl left unfinished, so it is created anew.
func (e *Env) deleteHalfMadeCluster(ctx context.Context) error {
	e.log().Info("the kind cluster's create was interrupted (labctl up stopped while kind ran); deleting what it made to create it again",
		"cluster", e.Lab.Name)
	if err := e.Kind.Delete(ctx, e.Lab.Name, e.State.ManagementKubeconfig()); err != nil {
		return err
	}
	rec, _, err := owner.Read(e.State)
	if err != nil {
		return err
	}
	rec.KindCluster, rec.KindNodes, rec.KindPending = "", nil, false
	return owner.Write(e.State, rec) // KindNetwork stays: the next create finds it there
}
