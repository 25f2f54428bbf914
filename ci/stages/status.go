package stages

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/internal/kubeconfig"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TenantStatus is one line about a tenant: where its API server is, whether
// it answers, and how many of its nodes are Ready.
func TenantStatus(ctx context.Context, e *Env, tenant string) (line string, healthy bool) {
	kc, err := os.ReadFile(e.State.Kubeconfig(tenant))
	if err != nil {
		return "no kubeconfig (stage tenants has not run)", false
	}
	server, _ := kubeconfig.Server(kc)
	tc, err := e.tenantClients(tenant)
	if err != nil {
		return server + ": " + err.Error(), false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	nodes, err := tc.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return server + ": not answering (" + err.Error() + ")", false
	}
	ready := 0
	for i := range nodes.Items {
		if ok, _ := kube.NodeReady(&nodes.Items[i]); ok {
			ready++
		}
	}
	return fmt.Sprintf("%s: %d/%d nodes Ready", server, ready, len(nodes.Items)), ready == len(nodes.Items) && ready > 0
}
