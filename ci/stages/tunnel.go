package stages

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// The tenant's konnectivity tunnel carries every API server → cluster
// connection: Kamaji 26.8.2-edge gives the API server an egress selector
// named "cluster" over the konnectivity-server socket
// (internal/resources/konnectivity/egress_selector_configuration_resource.go),
// so pods/log, exec, port-forward and the service proxy, and HAMi's
// admission webhook call, all reach the workers through the agents. HAMi's
// webhook fails open (failurePolicy: Ignore), so a broken tunnel would
// otherwise show only later, as pods HAMi never mutated. The workers stage
// proves the tunnel as soon as it can carry anything.
const (
	// coreDNSName is the CoreDNS Deployment in kube-system: Kamaji's
	// coreDNS addon runs kubeadm's DNS phase (internal/kubeadm/addon.go,
	// dns.EnsureDNSAddon), whose name is kubeadm v1.36.3's
	// constants.CoreDNSDeploymentName.
	coreDNSName = "coredns"
)

// tunnelPlan is what the proof does, for the plan.
func tunnelPlan(e *Env, t lab.Tenant) []string {
	return []string{
		fmt.Sprintf("wait in tenant %s until DaemonSet kube-system/%s (Kamaji's konnectivity agents) and "+
			"Deployment kube-system/%s are ready (%s)", t.Name, render.KonnectivityAgentName, coreDNSName, e.Timeouts.Rollout),
		fmt.Sprintf("prove the konnectivity tunnel of tenant %s: GET pods/log (1 line) of the %s pod on each "+
			"worker, which the API server fetches from the worker's kubelet through the tunnel (%s)",
			t.Name, render.KonnectivityAgentName, e.Timeouts.NodeReady),
	}
}

// proveTunnel waits for the tenant's konnectivity agents and CoreDNS, then
// makes one API server → kubelet round trip per worker through the tunnel:
// one line of the log of the agent pod on that worker. The error names the
// tunnel, the worker and what the API server said.
func proveTunnel(ctx context.Context, e *Env, tc *Clients, t lab.Tenant) error {
	cond, err := e.wait(ctx, e.Timeouts.Rollout, "konnectivity agents in tenant "+t.Name, func(ctx context.Context) (bool, string, error) {
		ds, err := tc.Kube.AppsV1().DaemonSets("kube-system").Get(ctx, render.KonnectivityAgentName, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		ok, cond := kube.DaemonSetReady(ds)
		return ok, cond, nil
	})
	if err != nil {
		return fail(stageWorkers,
			"DaemonSet kube-system/"+render.KonnectivityAgentName+" in tenant "+t.Name+" (the konnectivity tunnel's agents)", cond, err)
	}
	cond, err = e.wait(ctx, e.Timeouts.Rollout, "CoreDNS in tenant "+t.Name, func(ctx context.Context) (bool, string, error) {
		d, err := tc.Kube.AppsV1().Deployments("kube-system").Get(ctx, coreDNSName, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		ok, cond := kube.DeploymentReady(d)
		return ok, cond, nil
	})
	if err != nil {
		return fail(stageWorkers, "Deployment kube-system/"+coreDNSName+" in tenant "+t.Name, cond, err)
	}
	for _, w := range t.Workers {
		node := e.Lab.NodeName(t.Name, w.Name)
		cond, err := e.wait(ctx, e.Timeouts.NodeReady, "konnectivity tunnel to "+node, func(ctx context.Context) (bool, string, error) {
			return tunnelRoundTrip(ctx, tc, node)
		})
		if err != nil {
			return fail(stageWorkers, "konnectivity tunnel of tenant "+t.Name+" to "+node,
				cond+" (the tenant API server reaches the kubelet only through konnectivity-server in the "+
					"control plane and the konnectivity-agent on the workers: see both logs; HAMi's webhook "+
					"rides the same tunnel)", err)
		}
	}
	return nil
}

// tunnelRoundTrip reads one log line of the konnectivity agent on node
// through the API server.
func tunnelRoundTrip(ctx context.Context, tc *Clients, node string) (bool, string, error) {
	pods, err := tc.Kube.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{
		LabelSelector: "k8s-app=" + render.KonnectivityAgentName,
		FieldSelector: "spec.nodeName=" + node,
	})
	if err != nil {
		return false, "", err
	}
	var running []string
	for _, p := range pods.Items {
		if p.Spec.NodeName == node && p.Status.Phase == corev1.PodRunning {
			running = append(running, p.Name)
		}
	}
	if len(running) == 0 {
		return false, fmt.Sprintf("no running %s pod on %s", render.KonnectivityAgentName, node), nil
	}
	one := int64(1)
	_, err = tc.Kube.CoreV1().Pods("kube-system").GetLogs(running[0], &corev1.PodLogOptions{TailLines: &one}).DoRaw(ctx)
	if err != nil && ctx.Err() != nil {
		// Cut off by the wait's own deadline: this says nothing about the
		// tunnel, so the condition seen before stands in the error.
		return false, "", nil
	}
	if err != nil {
		return false, fmt.Sprintf("API server → kubelet of %s (pods/log of %s): %s", node, running[0], strings.TrimSpace(err.Error())), nil
	}
	return true, "pods/log of " + running[0] + " came back through the tunnel", nil
}
