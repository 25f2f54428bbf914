package owner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

const (
	// Label carries the owner ID of the state dir that started the
	// container (Docker label) or created the cluster (Node label).
	Label = "gpu-lab.dev/owner"
	// KindClusterLabel is the Docker label kind v0.33.0 puts on every node
	// container of a cluster, valued with the cluster name (provision.go:140,
	// constants.go:21).
	KindClusterLabel = "io.x-k8s.kind.cluster"
)

// ErrNotOwned marks a refusal: an object of the lab's name exists that this
// state dir did not create.
var ErrNotOwned = errors.New("not created by labctl from this state dir")

// KindCluster decides whether labctl may adopt or delete the kind cluster
// named cluster, whose node containers Docker shows as nodes (every
// container with kind's cluster label for the name). owned is true when the
// cluster exists and is this state dir's, false when there is no node
// container; otherwise the error (wrapping ErrNotOwned) names the cluster,
// why it is not this state dir's, and how to proceed, and owned is false so
// that no caller acts on it.
func KindCluster(rec Record, haveRec bool, stateDir state.Dir, cluster string, nodes []docker.Container) (owned bool, err error) {
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
				why = fmt.Sprintf("its node container %s (ID %s) is not one the state dir recorded", name, ShortID(n.ID))
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
			"with `kind delete cluster --name %s`, then run labctl up again", cluster, ErrNotOwned, stateDir, why, cluster, cluster)
	}
	return false, fmt.Errorf("kind cluster %s exists but %w %s (%s): use another lab name (`name:` in the lab file), or "+
		"run labctl (`up`, or `down` to remove it) with the --state-dir that created it; if it is "+
		"yours and no state dir has it, `kind delete cluster --name %s`", cluster, ErrNotOwned, stateDir, why, cluster)
}

// Worker decides whether labctl may run commands in, or remove, the
// existing container c as the lab's worker of tenant: it must carry the
// lab, tenant and owner labels labctl puts on the workers it starts.
func Worker(rec Record, haveRec bool, stateDir state.Dir, labName, tenant string, c docker.Container) error {
	name := strings.TrimPrefix(c.Name, "/")
	l := c.Config.Labels
	want := map[string]string{render.LabelLab: labName, render.LabelTenant: tenant}
	if haveRec {
		want[Label] = rec.ID
	}
	var bad []string
	for _, k := range []string{render.LabelLab, render.LabelTenant, Label} {
		got, ok := l[k]
		switch {
		case !ok:
			bad = append(bad, k+" missing")
		case k == Label && !haveRec:
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
		"(`docker rm -f %s`)", name, ErrNotOwned, stateDir, labName, tenant, strings.Join(bad, "; "), name)
}

// KindNode decides whether the container c, found under the name of a node
// of the kind cluster the record holds, is the node container the record
// holds under that name: nil when it is.
func KindNode(rec Record, stateDir state.Dir, cluster, name string, c docker.Container) error {
	if want := rec.KindNodes[name]; want == "" || want != c.ID {
		return fmt.Errorf("container %s (ID %s) exists but %w %s: it is not the node container the state dir "+
			"recorded for kind cluster %s; labctl imports nothing into it", name, ShortID(c.ID), ErrNotOwned, stateDir, cluster)
	}
	return nil
}

// ShortID is a container ID as Docker prints it: its first 12 characters.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
