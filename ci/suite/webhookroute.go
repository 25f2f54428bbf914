package suite

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// routeTimeout bounds the reads of webhookRoute: they run after a case
// failed, also when its own context is done.
const routeTimeout = 10 * time.Second

// webhookRoute is webhookRoute for one tenant, under its own deadline.
func (t *caseT) webhookRoute(ctx context.Context, tenant string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), routeTimeout)
	defer cancel()
	return webhookRoute(ctx, t.client(tenant))
}

// webhookRoute says where a tenant's API server sends its call to HAMi's
// webhook: the Service the webhook names, the nodes its endpoints are on,
// the Konnectivity agent pods that carry API server → worker calls, and the
// Ready condition of each of those nodes. A case that finds a pod unmutated
// adds it to its message, so the reader knows which node to look at (a
// worker restarted under the suite took both the webhook's pod and the
// tunnel's agent with it, 2026-12-06, ci/hack/rehearsal/testdata/runs/2026-12-06-faults).
// What cannot be read is said in place.
func webhookRoute(ctx context.Context, cs kubernetes.Interface) string {
	var parts []string
	nodes := map[string]bool{}
	svc, err := webhookService(ctx, cs)
	switch {
	case err != nil:
		parts = append(parts, err.Error())
	default:
		parts = append(parts, serviceRoute(ctx, cs, svc, nodes))
	}
	parts = append(parts, agentRoute(ctx, cs, nodes))
	for _, n := range sortedSet(nodes) {
		parts = append(parts, nodeCondition(ctx, cs, n))
	}
	return strings.Join(parts, "; ")
}

// webhookService finds the Service of HAMi's webhook through the
// MutatingWebhookConfiguration that holds it, whatever its release name.
func webhookService(ctx context.Context, cs kubernetes.Interface) (*corev1.Service, error) {
	cfgs, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("webhook %s: list MutatingWebhookConfigurations: %w", gpus.WebhookName, err)
	}
	for _, c := range cfgs.Items {
		for _, w := range c.Webhooks {
			if w.Name != gpus.WebhookName {
				continue
			}
			ref := w.ClientConfig.Service
			if ref == nil {
				return nil, fmt.Errorf("webhook %s in MutatingWebhookConfiguration %s calls a URL, not a Service", w.Name, c.Name)
			}
			svc, err := cs.CoreV1().Services(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("webhook %s → Service %s/%s: %w", w.Name, ref.Namespace, ref.Name, err)
			}
			return svc, nil
		}
	}
	return nil, fmt.Errorf("no MutatingWebhookConfiguration holds webhook %s: HAMi's webhook is not installed", gpus.WebhookName)
}

// serviceRoute names the Service's endpoints and their nodes (adding the
// nodes to nodes); an ExternalName Service has none and names its target.
func serviceRoute(ctx context.Context, cs kubernetes.Interface, svc *corev1.Service, nodes map[string]bool) string {
	name := fmt.Sprintf("webhook %s → Service %s/%s", gpus.WebhookName, svc.Namespace, svc.Name)
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return fmt.Sprintf("%s (ExternalName %s)", name, svc.Spec.ExternalName)
	}
	sl, err := cs.DiscoveryV1().EndpointSlices(svc.Namespace).List(ctx,
		metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + svc.Name})
	if err != nil {
		return fmt.Sprintf("%s: list its EndpointSlices: %v", name, err)
	}
	var eps []string
	for _, s := range sl.Items {
		for _, e := range s.Endpoints {
			node := "no node"
			if e.NodeName != nil && *e.NodeName != "" {
				node, nodes[*e.NodeName] = "node "+*e.NodeName, true
			}
			eps = append(eps, fmt.Sprintf("%s on %s (%s)", endpointName(e), node, readiness(e.Conditions.Ready)))
		}
	}
	if len(eps) == 0 {
		return name + " has no endpoints (its pods are gone or were never ready)"
	}
	sort.Strings(eps)
	return name + " served by " + strings.Join(eps, ", ")
}

func endpointName(e discoveryv1.Endpoint) string {
	if e.TargetRef != nil && e.TargetRef.Kind == "Pod" {
		return "pod " + e.TargetRef.Name
	}
	return strings.Join(e.Addresses, ",")
}

func readiness(ready *bool) string {
	switch {
	case ready == nil:
		return "readiness unknown"
	case *ready:
		return "ready"
	}
	return "not ready"
}

// agentRoute names the Konnectivity agent pods and their nodes (adding the
// nodes to nodes). Where the agent is not a pod (the local test
// environment runs it as a process) it says so.
func agentRoute(ctx context.Context, cs kubernetes.Interface, nodes map[string]bool) string {
	sel := "k8s-app=" + render.KonnectivityAgentName
	pl, err := cs.CoreV1().Pods(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return fmt.Sprintf("Konnectivity agents (pods %s in %s): %v", sel, metav1.NamespaceSystem, err)
	}
	if len(pl.Items) == 0 {
		return fmt.Sprintf("no Konnectivity agent pods (%s in %s)", sel, metav1.NamespaceSystem)
	}
	var agents []string
	for _, p := range pl.Items {
		node := "no node"
		if p.Spec.NodeName != "" {
			node, nodes[p.Spec.NodeName] = "node "+p.Spec.NodeName, true
		}
		agents = append(agents, fmt.Sprintf("%s on %s (%s)", p.Name, node, podReadiness(&p)))
	}
	sort.Strings(agents)
	return "Konnectivity agents " + strings.Join(agents, ", ")
}

func podReadiness(p *corev1.Pod) string {
	_, cond := kube.PodReady(p)
	return cond
}

func nodeCondition(ctx context.Context, cs kubernetes.Interface, name string) string {
	n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Sprintf("node %s: %v", name, err)
	}
	return "node " + name + " " + readyMessage(n)
}
