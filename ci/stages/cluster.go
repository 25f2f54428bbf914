package stages

import (
	"context"
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/internal/kubeconfig"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// clusterStage creates the kind management cluster.
type clusterStage struct{}

func (clusterStage) Name() string { return stageCluster }

func (clusterStage) Plan(e *Env) ([]string, error) {
	cfg, err := render.KindConfig(e.Lab, e.Reach.renderOptions(render.PlaceholderManagementAddress))
	if err != nil {
		return nil, err
	}
	y, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	server := "https://127.0.0.1:<port kind picks>"
	if e.Reach.Remote() {
		server = fmt.Sprintf("https://%s:%d", e.Reach.Host, managementAPIPort)
	}
	return []string{
		fmt.Sprintf("docker image inspect %s || docker pull %s (give up after %s: no registry → fail fast)", e.Lab.Versions.KindNodeImage, e.Lab.Versions.KindNodeImage, e.Timeouts.Pull),
		fmt.Sprintf("a kind cluster %s whose create an interrupted labctl up left pending in %s: kind delete cluster --name %s", e.Lab.Name, e.State.OwnerRecordPath(), e.Lab.Name),
		fmt.Sprintf("record in %s that the create of kind cluster %s is pending, then each node container's ID as soon as Docker lists it", e.State.OwnerRecordPath(), e.Lab.Name),
		fmt.Sprintf("kind create cluster (Go API, docker provider) --name %s --wait %s --config:\n%s", e.Lab.Name, e.Timeouts.ClusterReady, indent(string(y))),
		fmt.Sprintf("docker container inspect %s → IPv4 on network %s (never the IPv6 one)", e.controlPlaneContainer(), e.Network),
		fmt.Sprintf("write %s (server %s), the resolved lab %s and the backend line", e.State.ManagementKubeconfig(), server, e.State.LabPath()),
	}, nil
}

func (clusterStage) Check(ctx context.Context, e *Env) (bool, string, error) {
	ok, pending, err := e.kindClusterState(ctx)
	if err != nil || !ok || pending {
		return false, "", err
	}
	if _, err := os.Stat(e.State.ManagementKubeconfig()); err != nil {
		return false, "", nil
	}
	c, err := e.managementClients()
	if err != nil {
		return false, "", nil
	}
	if _, err := c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err != nil {
		return false, "", nil
	}
	ip, err := e.managementIP(ctx)
	if err != nil {
		return false, "", err
	}
	return true, fmt.Sprintf("kind cluster %s, management node %s", e.Lab.Name, ip), nil
}

func (clusterStage) Run(ctx context.Context, e *Env) (string, error) {
	exists, pending, err := e.kindClusterState(ctx)
	if err != nil {
		return "", fail(stageCluster, "kind cluster "+e.Lab.Name, "", err)
	}
	if pending {
		if err := e.deleteHalfMadeCluster(ctx); err != nil {
			return "", fail(stageCluster, "kind cluster "+e.Lab.Name, "an interrupted create left it half made", err)
		}
		exists = false
	}
	if !exists {
		node := e.localImage(e.Lab.Versions.KindNodeImage)
		if err := e.Docker.EnsureImage(ctx, node, e.Timeouts.Pull); err != nil {
			return "", fail(stageCluster, "image "+e.Lab.Versions.KindNodeImage, "not present on the daemon", err)
		}
		cfg, err := render.KindConfig(e.Lab, e.Reach.renderOptions(render.PlaceholderManagementAddress))
		if err != nil {
			return "", fail(stageCluster, "kind config", "", err)
		}
		// A bundle's digest-pinned node image goes by its ID (images.Loaded).
		for i := range cfg.Nodes {
			cfg.Nodes[i].Image = e.localImage(cfg.Nodes[i].Image)
		}
		if err := e.createOwnedKindCluster(ctx, cfg); err != nil {
			return "", fail(stageCluster, "kind cluster "+e.Lab.Name, "create failed", err)
		}
	}
	raw, err := e.Kind.KubeConfig(ctx, e.Lab.Name)
	if err != nil {
		return "", fail(stageCluster, "kind cluster "+e.Lab.Name, "no kubeconfig", err)
	}
	kindServer, err := kubeconfig.Server(raw)
	if err != nil {
		return "", fail(stageCluster, "kind kubeconfig", "", err)
	}
	server, err := e.Reach.managementServer(kindServer)
	if err != nil {
		return "", fail(stageCluster, "kind kubeconfig", "server "+kindServer, err)
	}
	kc, err := kubeconfig.RewriteServer(raw, server)
	if err != nil {
		return "", fail(stageCluster, "kind kubeconfig", "", err)
	}
	if err := e.State.WriteManagementKubeconfig(kc); err != nil {
		return "", fail(stageCluster, e.State.ManagementKubeconfig(), "", err)
	}
	e.forget("")
	ip, err := e.managementIP(ctx)
	if err != nil {
		return "", fail(stageCluster, "container "+e.controlPlaneContainer(), "", err)
	}
	if err := e.State.WriteLab(e.Lab); err != nil {
		return "", fail(stageCluster, "state lab.yaml", "", err)
	}
	if err := e.State.WriteBackend(Backend(e.Reach)); err != nil {
		return "", fail(stageCluster, "state backend", "", err)
	}
	verb := "created"
	if exists {
		verb = "reused"
	}
	return fmt.Sprintf("kind cluster %s %s, management node %s on network %s, API %s", e.Lab.Name, verb, ip, e.Network, server), nil
}

// Backend describes the lab for reports.
func Backend(r Reach) string {
	if r.Remote() {
		return "kind+kamaji+hami on Docker at " + r.Host
	}
	return "kind+kamaji+hami on the local Docker daemon"
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}
