package stages

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// Ownership: labctl adopts, runs commands in, or deletes only what it
// created from this state directory. A name is not proof: `name: kind` is
// the user's default kind cluster, and two checkouts with the default lab
// name share every container name.
//
//   - Worker containers are started by labctl (`docker run`), so they carry
//     the state dir's owner ID as a Docker label (labelOwner) next to the lab
//     and tenant labels.
//   - The kind cluster's node containers are created by kind, whose config
//     has no field for container labels: kind v0.33.0's docker provider puts
//     exactly two labels on a node container, io.x-k8s.kind.cluster=<name>
//     and io.x-k8s.kind.role=<role> (sigs.k8s.io/kind@v0.33.0
//     pkg/cluster/internal/providers/docker/provision.go:140 and :220,
//     constants.go:21,25), and a Docker label cannot be added to an existing
//     container. So the state dir records the IDs Docker gave the cluster's
//     node containers right after kind created them, and a cluster is this
//     state dir's only when every node container kind lists for the name
//     (the same `docker ps -a --filter label=io.x-k8s.kind.cluster=<name>`
//     as kind's ListNodes, provider.go:113-123) has a recorded ID. Container
//     IDs are made by the daemon and never reused, so a foreign cluster of
//     the same name cannot match. The owner ID also goes on the cluster's
//     Nodes as a Kubernetes label (kind's node `labels`, v1alpha4/types.go:
//     110-111, passed to the kubelet's --node-labels:
//     pkg/cluster/internal/create/actions/config/config.go:213,
//     pkg/cluster/internal/kubeadm/config.go:555-556), so a person can see
//     from inside the cluster which state dir made it; the decision does not
//     depend on it.
const (
	// labelOwner carries the owner ID of the state dir that started the
	// container (Docker label) or created the cluster (Node label).
	labelOwner = "gpu-lab.dev/owner"
	// kindClusterLabel is the Docker label kind v0.33.0 puts on every node
	// container of a cluster, valued with the cluster name (provision.go:140,
	// constants.go:21).
	kindClusterLabel = "io.x-k8s.kind.cluster"
)

// errNotOwned marks a refusal: an object of the lab's name exists that this
// state dir did not create.
var errNotOwned = errors.New("not created by labctl from this state dir")

// ownerRecord is what a state dir created: its owner ID and the kind
// cluster's node containers.
type ownerRecord struct {
	// ID is random (128 bits, hex); it labels every container labctl starts.
	ID string `json:"id"`
	// KindCluster is the name of the kind cluster this state dir created.
	KindCluster string `json:"kindCluster,omitempty"`
	// KindNodes maps each of its node containers' names to the ID Docker gave
	// it.
	KindNodes map[string]string `json:"kindNodes,omitempty"`
	// KindPending: the create of KindCluster began and has not finished
	// (kindcreate.go); KindNodes holds the node containers seen so far.
	KindPending bool `json:"kindPending,omitempty"`
	// KindNetwork is the Docker network kind made for the cluster: it did
	// not exist when this state dir's create began (kindcreate.go).
	KindNetwork string `json:"kindNetwork,omitempty"`
}

// readOwnerRecord reads the state dir's record; ok is false when it has none.
func readOwnerRecord(d state.Dir) (rec ownerRecord, ok bool, err error) {
	b, ok, err := d.ReadOwnerRecord()
	if err != nil {
		return ownerRecord{}, false, fmt.Errorf("read owner record: %w", err)
	}
	if !ok {
		return ownerRecord{}, false, nil
	}
	if err := json.Unmarshal(b, &rec); err != nil || rec.ID == "" {
		if err == nil {
			err = errors.New("no id")
		}
		return ownerRecord{}, false, fmt.Errorf("owner record %s is damaged (%w): labctl cannot tell what this state dir created; remove "+
			"the lab's objects by hand", d.OwnerRecordPath(), err)
	}
	return rec, true, nil
}

// writeOwnerRecord replaces the record through the state dir's own write
// (a fresh private temporary file, renamed over it).
func writeOwnerRecord(d state.Dir, rec ownerRecord) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := d.WriteOwnerRecord(append(b, '\n')); err != nil {
		return fmt.Errorf("write owner record: %w", err)
	}
	return nil
}

// newOwnerID draws a fresh owner ID.
func newOwnerID(r io.Reader) (string, error) {
	b := make([]byte, 16)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("owner id: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// ensureOwner returns the state dir's record, creating it (a new ID) when
// the state dir has none.
func (e *Env) ensureOwner() (ownerRecord, error) {
	rec, ok, err := readOwnerRecord(e.State)
	if err != nil || ok {
		return rec, err
	}
	id, err := newOwnerID(rand.Reader)
	if err != nil {
		return ownerRecord{}, err
	}
	rec = ownerRecord{ID: id}
	return rec, writeOwnerRecord(e.State, rec)
}

// kindClusterOwnership decides whether labctl may adopt or delete the kind
// cluster named cluster, whose node containers Docker shows as nodes
// (every container with kind's cluster label for the name). owned is true
// when the cluster exists and is this state dir's, false when there is no
// node container; otherwise the error (wrapping errNotOwned) names the
// cluster, why it is not this state dir's, and how to proceed, and owned
// is false so that no caller acts on it.
func kindClusterOwnership(rec ownerRecord, haveRec bool, stateDir state.Dir, cluster string, nodes []docker.Container) (owned bool, err error) {
	if len(nodes) == 0 {
		return false, nil
	}
	why := ""
	switch {
	case !haveRec:
		why = "the state dir has no owner record"
	case rec.KindCluster != cluster || len(rec.KindNodes) == 0:
		why = "the state dir records no kind cluster of that name"
	default:
		for _, n := range nodes {
			name := strings.TrimPrefix(n.Name, "/")
			if want, ok := rec.KindNodes[name]; !ok || want != n.ID {
				why = fmt.Sprintf("its node container %s (ID %s) is not one the state dir recorded", name, shortID(n.ID))
				break
			}
		}
	}
	if why == "" {
		return true, nil
	}
	if haveRec && rec.KindPending && rec.KindCluster == cluster {
		return false, fmt.Errorf("kind cluster %s exists but %w %s (%s): a labctl up of this state dir was creating a "+
			"cluster of that name and was stopped before it could record every node container; if "+
			"nobody else creates a kind cluster named %s on this Docker, it is that one: remove it "+
			"with `kind delete cluster --name %s`, then run labctl up again", cluster, errNotOwned, stateDir, why, cluster, cluster)
	}
	return false, fmt.Errorf("kind cluster %s exists but %w %s (%s): use another lab name (`name:` in the lab file), or "+
		"run labctl (`up`, or `down` to remove it) with the --state-dir that created it; if it is "+
		"yours and no state dir has it, `kind delete cluster --name %s`", cluster, errNotOwned, stateDir, why, cluster)
}

// workerOwnership decides whether labctl may run commands in, or remove,
// the existing container c as the lab's worker of tenant: it must carry the
// lab, tenant and owner labels labctl puts on the workers it starts.
func workerOwnership(rec ownerRecord, haveRec bool, stateDir state.Dir, labName, tenant string, c docker.Container) error {
	name := strings.TrimPrefix(c.Name, "/")
	l := c.Config.Labels
	want := map[string]string{render.LabelLab: labName, render.LabelTenant: tenant}
	if haveRec {
		want[labelOwner] = rec.ID
	}
	var bad []string
	for _, k := range []string{render.LabelLab, render.LabelTenant, labelOwner} {
		got, ok := l[k]
		switch {
		case !ok:
			bad = append(bad, k+" missing")
		case k == labelOwner && !haveRec:
			bad = append(bad, k+"="+got+" (the state dir has no owner record)")
		case got != want[k]:
			bad = append(bad, fmt.Sprintf("%s=%s, want %s", k, got, want[k]))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("container %s exists but %w %s for lab %s, tenant %s (labels: %s); labctl runs nothing in "+
		"it and leaves it alone: use another lab or worker name, run labctl (`up`, or `down` to "+
		"remove it) with the --state-dir that created it, or remove it yourself if it is yours "+
		"(`docker rm -f %s`)", name, errNotOwned, stateDir, labName, tenant, strings.Join(bad, "; "), name)
}

// ownedWorkerLabels are the labels of a worker labctl starts: lab, tenant
// (workerLabels) and this state dir's owner ID.
func ownedWorkerLabels(e *Env, tenant, ownerID string) map[string]string {
	l := workerLabels(e.Lab, tenant)
	l[labelOwner] = ownerID
	return l
}

// kindNodes lists the containers kind counts as the cluster's nodes.
func (e *Env) kindNodes(ctx context.Context, cluster string) ([]docker.Container, error) {
	names, err := e.Docker.ListContainers(ctx, kindClusterLabel+"="+cluster)
	if err != nil {
		return nil, fmt.Errorf("kind cluster %s: %w", cluster, err)
	}
	sort.Strings(names)
	var out []docker.Container
	for _, n := range names {
		c, err := e.Docker.InspectContainer(ctx, n)
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

// ownedKindCluster reports whether the lab's kind cluster exists; it fails
// (errNotOwned, and false) when a cluster of the lab's name exists that
// this state dir did not create. It is what the cluster stage and Down ask instead of
// kind's name lookup.
func (e *Env) ownedKindCluster(ctx context.Context) (bool, error) {
	owned, _, err := e.ownedKindClusterRecord(ctx)
	return owned, err
}

// ownedKindClusterRecord is ownedKindCluster with the owner record it read.
func (e *Env) ownedKindClusterRecord(ctx context.Context) (bool, ownerRecord, error) {
	nodes, err := e.kindNodes(ctx, e.Lab.Name)
	if err != nil {
		return false, ownerRecord{}, err
	}
	rec, ok, err := readOwnerRecord(e.State)
	if err != nil {
		return false, ownerRecord{}, err
	}
	owned, err := kindClusterOwnership(rec, ok, e.State, e.Lab.Name, nodes)
	return owned, rec, err
}

// ownedContainers are the lab's containers labctl started from this state
// dir (owner and lab labels): the ones Down removes. Containers with the
// lab's label but another owner belong to another state dir.
func (e *Env) ownedContainers(ctx context.Context) ([]string, error) {
	rec, ok, err := readOwnerRecord(e.State)
	if err != nil || !ok {
		return nil, err
	}
	names, err := e.Docker.ListContainers(ctx, labelOwner+"="+rec.ID)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		c, err := e.Docker.InspectContainer(ctx, n)
		if docker.IsNotFound(err) {
			continue
		}
		if err != nil {
			return out, err
		}
		if c.Config.Labels[render.LabelLab] == e.Lab.Name && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// workerOwned is workerOwnership with this state dir's record: nil when
// labctl may run commands in the existing container c as tenant's worker.
func (e *Env) workerOwned(c docker.Container, tenant string) error {
	rec, ok, err := readOwnerRecord(e.State)
	if err != nil {
		return err
	}
	return workerOwnership(rec, ok, e.State, e.Lab.Name, tenant, c)
}
