package stages

import (
	"context"
	"fmt"

	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/internal/kubeconfig"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// clusterRun is one run of the cluster stage: its steps, and what its
// first step found for the later ones.
type clusterRun struct {
	e       *Env
	existed bool          // the kind cluster was there, whole, before the stage
	ip      string        // the management node's IPv4
	server  string        // where labctl reaches the management API
	cfg     *kind.Cluster // the kind config steps rendered, which the create uses
	created chan struct{} // closed when create has returned (earlyImports)
}

func newClusterRun(e *Env) *clusterRun { return &clusterRun{e: e, created: make(chan struct{})} }

// createEnded tells whether the create step has returned.
func (r *clusterRun) createEnded() bool {
	select {
	case <-r.created:
		return true
	default:
		return false
	}
}

// steps are the stage's steps: what its dry-run prints and its Run does.
func (r *clusterRun) steps() (steps.Step, error) {
	e := r.e
	cfg, err := render.KindConfig(e.Lab, e.Reach.renderOptions(render.PlaceholderManagementAddress))
	if err != nil {
		return steps.Step{}, fmt.Errorf("kind config: %w", err)
	}
	y, err := yaml.Marshal(cfg)
	if err != nil {
		return steps.Step{}, fmt.Errorf("kind config: %w", err)
	}
	r.cfg = cfg
	server := "https://127.0.0.1:<port kind picks>"
	if e.Reach.Remote() {
		server = fmt.Sprintf("https://%s:%d", e.Reach.Host, managementAPIPort)
	}
	img := e.Lab.Versions.KindNodeImage
	return steps.Seq(
		steps.Do(r.find,
			fmt.Sprintf("a kind cluster %s whose create an interrupted labctl up left pending in %s: kind delete "+
				"cluster --name %s", e.Lab.Name, e.State.OwnerRecordPath(), e.Lab.Name)),
		steps.Do(r.ensureImage,
			fmt.Sprintf("unless the cluster is there: docker image inspect %s || docker pull %s (give up after %s: "+
				"no registry → fail fast)", img, img, e.Timeouts.Pull)),
		steps.SideBySide("", steps.Do(r.create,
			fmt.Sprintf("unless the cluster is there: record in %s that the create of kind cluster %s is pending, "+
				"then each node container's ID as soon as Docker lists it", e.State.OwnerRecordPath(), e.Lab.Name),
			fmt.Sprintf("kind create cluster (Go API, docker provider) --name %s --wait %s --config:\n%s",
				e.Lab.Name, e.Timeouts.ClusterReady, indent(string(y)))),
			r.earlyImports()),
		steps.Do(r.record,
			fmt.Sprintf("docker container inspect %s → IPv4 on network %s (never the IPv6 one)", e.controlPlaneContainer(), e.Network),
			fmt.Sprintf("write %s (server %s), the resolved lab %s and the backend line",
				e.State.ManagementKubeconfig(), server, e.State.LabPath())),
	), nil
}

// find reads whether the cluster is there, and deletes one whose create
// was interrupted.
func (r *clusterRun) find(ctx context.Context) error {
	e := r.e
	exists, pending, err := e.kindClusterState(ctx)
	if err != nil {
		return fail(stageCluster, "kind cluster "+e.Lab.Name, "", err)
	}
	if pending {
		if err := e.deleteHalfMadeCluster(ctx); err != nil {
			return fail(stageCluster, "kind cluster "+e.Lab.Name, "an interrupted create left it half made", err)
		}
		exists = false
	}
	r.existed = exists
	return nil
}

func (r *clusterRun) ensureImage(ctx context.Context) error {
	if r.existed {
		return nil
	}
	e := r.e
	node := e.localImage(e.Lab.Versions.KindNodeImage)
	if err := e.Docker.EnsureImage(ctx, node, e.Timeouts.Pull); err != nil {
		return fail(stageCluster, "image "+e.Lab.Versions.KindNodeImage, "not present on the daemon", err)
	}
	return nil
}

func (r *clusterRun) create(ctx context.Context) error {
	defer close(r.created)
	if r.existed {
		return nil
	}
	e, cfg := r.e, r.cfg
	// A bundle's digest-pinned node image goes by its ID (images.Loaded).
	for i := range cfg.Nodes {
		cfg.Nodes[i].Image = e.localImage(cfg.Nodes[i].Image)
	}
	if err := e.createOwnedKindCluster(ctx, cfg); err != nil {
		return fail(stageCluster, "kind cluster "+e.Lab.Name, "create failed", err)
	}
	return nil
}

// record writes the management kubeconfig (its server where labctl
// reaches it), the resolved lab and the backend line.
func (r *clusterRun) record(ctx context.Context) error {
	e := r.e
	raw, err := e.Kind.KubeConfig(ctx, e.Lab.Name)
	if err != nil {
		return fail(stageCluster, "kind cluster "+e.Lab.Name, "no kubeconfig", err)
	}
	kindServer, err := kubeconfig.Server(raw)
	if err != nil {
		return fail(stageCluster, "kind kubeconfig", "", err)
	}
	if r.server, err = e.Reach.managementServer(kindServer); err != nil {
		return fail(stageCluster, "kind kubeconfig", "server "+kindServer, err)
	}
	kc, err := kubeconfig.RewriteServer(raw, r.server)
	if err != nil {
		return fail(stageCluster, "kind kubeconfig", "", err)
	}
	if err := e.State.WriteManagementKubeconfig(kc); err != nil {
		return fail(stageCluster, e.State.ManagementKubeconfig(), "", err)
	}
	e.forget("")
	if r.ip, err = e.managementIP(ctx); err != nil {
		return fail(stageCluster, "container "+e.controlPlaneContainer(), "", err)
	}
	if err := e.State.WriteLab(e.Lab); err != nil {
		return fail(stageCluster, "state lab.yaml", "", err)
	}
	if err := e.State.WriteBackend(Backend(e.Reach)); err != nil {
		return fail(stageCluster, "state backend", "", err)
	}
	return nil
}
