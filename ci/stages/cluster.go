package stages

import (
	"context"
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// clusterStage creates the kind management cluster.
type clusterStage struct{}

func (clusterStage) Name() string { return stageCluster }

func (clusterStage) Plan(e *Env) ([]string, error) { return planOf(newClusterRun(e).steps) }

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
	r := newClusterRun(e)
	if err := e.runBuilt(ctx, stageCluster, r.steps); err != nil {
		return "", err
	}
	verb := "created"
	if r.existed {
		verb = "reused"
	}
	return fmt.Sprintf("kind cluster %s %s, management node %s on network %s, API %s", e.Lab.Name, verb, r.ip, e.Network, r.server), nil
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
