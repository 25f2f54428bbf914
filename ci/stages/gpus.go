package stages

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// gpusStage holds the lab's readiness gates once HAMi runs, so no suite
// starts on a lab that would fail it for want of registration. The cards are
// registered by HAMi's own device plugin (chart 2.10.0's DaemonSet, against
// the mock NVML library the hami stage installed): nothing of gpu-lab's
// writes them. The gates, per tenant:
//   - DaemonSet hami-device-plugin is ready on every worker;
//   - every worker's Node has nvidia.com/gpu = split × cards in both
//     status.capacity and status.allocatable: what the kubelet counts of
//     the devices the plugin registered (it registers only that resource);
//   - HAMi's scheduler reports every card in its metrics, so HAMi's Filter
//     no longer answers "node unregistered" (the plugin rewrites the
//     node's register annotation; the scheduler reads it on its 15 s tick).
type gpusStage struct{}

func (gpusStage) Name() string { return stageGPUs }

func (gpusStage) Plan(e *Env) ([]string, error) { return gpusSteps(e).Plan(), nil }

// gpusSteps are the stage's steps: each tenant's gates in order, the
// tenants side by side.
func gpusSteps(e *Env) steps.Step {
	var tenants []steps.Step
	for _, t := range e.Lab.Tenants {
		var want []string
		for _, w := range t.Workers {
			want = append(want, fmt.Sprintf("%s=%d", e.Lab.NodeName(t.Name, w.Name), gpus.GPUCapacity(e.Lab, w)))
		}
		says := []string{
			fmt.Sprintf("tenant %s: wait DaemonSet %s/%s ready on %d worker(s) (%s)",
				t.Name, render.HAMiNamespace, render.HAMiDevicePluginObject, len(t.Workers), e.Timeouts.Rollout),
			fmt.Sprintf("tenant %s: wait each worker Node's capacity and allocatable %s (%s) (%s)",
				t.Name, gpus.ResourceGPU, strings.Join(want, ", "), e.Timeouts.Cards),
			fmt.Sprintf("tenant %s: GET services/%s:<metrics port>/proxy/metrics until %s lists every card UUID "+
				"(device_uuid) (%s)", t.Name, hamiScheduler, gpus.MetricMemoryLimit, e.Timeouts.Cards),
		}
		var gs []steps.Step
		for i, say := range says {
			gs = append(gs, steps.Do(func(ctx context.Context) error { return gate(ctx, e, t, i) }, say))
		}
		tenants = append(tenants, steps.Seq(gs...))
	}
	return tenantsSideBySide(tenants)
}

// gate waits for the tenant's i-th gate (gates).
func gate(ctx context.Context, e *Env, t lab.Tenant, i int) error {
	tc, err := e.tenantClients(t.Name)
	if err != nil {
		return fail(stageGPUs, "tenant "+t.Name, "", err)
	}
	g := gates(e, tc, t)[i]
	timeout := e.Timeouts.Cards
	if i == 0 {
		timeout = e.Timeouts.Rollout
	}
	cond, err := e.wait(ctx, timeout, g.what+" in tenant "+t.Name, g.f)
	if err != nil {
		return fail(stageGPUs, g.what+" in tenant "+t.Name, cond, err)
	}
	return nil
}

// wantCards lists the card UUIDs of a tenant.
func wantCards(e *Env, tenant string) []string {
	var out []string
	t := e.Lab.Tenant(tenant)
	for _, w := range t.Workers {
		for _, d := range gpus.Devices(e.Lab, tenant, w) {
			out = append(out, d.ID)
		}
	}
	return out
}

// gates are the stage's three conditions for one tenant, in order.
func gates(e *Env, tc *Clients, t lab.Tenant) []struct {
	what string
	f    condFunc
} {
	return []struct {
		what string
		f    condFunc
	}{
		{"DaemonSet " + render.HAMiNamespace + "/" + render.HAMiDevicePluginObject, func(ctx context.Context) (bool, string, error) {
			return daemonSetOnWorkers(ctx, tc, render.HAMiNamespace, render.HAMiDevicePluginObject, len(t.Workers))
		}},
		{"worker Nodes' " + gpus.ResourceGPU, func(ctx context.Context) (bool, string, error) {
			return workersCounted(ctx, e, tc, t)
		}},
		{"HAMi scheduler's cards", func(ctx context.Context) (bool, string, error) {
			return cardsSeen(ctx, e, tc, t.Name)
		}},
	}
}

func (gpusStage) Check(ctx context.Context, e *Env) (bool, string, error) {
	n := 0
	for _, t := range e.Lab.Tenants {
		tc, err := e.tenantClients(t.Name)
		if err != nil {
			return false, "", nil
		}
		for _, g := range gates(e, tc, t) {
			if ok, _, err := g.f(ctx); err != nil || !ok {
				return false, "", nil
			}
		}
		n += len(wantCards(e, t.Name))
	}
	return true, fmt.Sprintf("HAMi sees all %d cards, registered by HAMi's device plugin in every tenant", n), nil
}

func (gpusStage) Run(ctx context.Context, e *Env) (string, error) {
	if err := e.runSteps(ctx, stageGPUs, gpusSteps(e)); err != nil {
		return "", err
	}
	total := 0
	for _, t := range e.Lab.Tenants {
		total += len(wantCards(e, t.Name))
	}
	return fmt.Sprintf("HAMi sees all %d cards, registered by HAMi's device plugin in every tenant", total), nil
}

// daemonSetOnWorkers: the DaemonSet is ready (kube.DaemonSetReady) and
// scheduled on as many nodes as the tenant has workers.
func daemonSetOnWorkers(ctx context.Context, tc *Clients, ns, name string, workers int) (bool, string, error) {
	ds, err := tc.Kube.AppsV1().DaemonSets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, "DaemonSet " + name + ": " + err.Error(), nil
	}
	ok, cond := kube.DaemonSetReady(ds)
	if ok && int(ds.Status.DesiredNumberScheduled) != workers {
		return false, fmt.Sprintf("%s, on %d node(s), want the %d worker(s) labelled %s=%s",
			cond, ds.Status.DesiredNumberScheduled, workers, gpus.LabelGPUNode, gpus.LabelGPUOn), nil
	}
	return ok, cond, nil
}

// workersCounted is the kubelet gate for one tenant: every worker's Node
// carries the plugin's count (countGap).
func workersCounted(ctx context.Context, e *Env, tc *Clients, t lab.Tenant) (bool, string, error) {
	var gaps []string
	for _, w := range t.Workers {
		node := e.Lab.NodeName(t.Name, w.Name)
		n, err := tc.Kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return false, "", fmt.Errorf("read Node %s of worker %s in tenant %s: %w", node, w.Name, t.Name, err)
		}
		if err := countGap(t.Name, w.Name, n, int64(gpus.GPUCapacity(e.Lab, w))); err != nil {
			gaps = append(gaps, err.Error())
		}
	}
	if len(gaps) > 0 {
		return false, strings.Join(gaps, "; "), nil
	}
	return true, "every worker's " + gpus.ResourceGPU + " is split × cards", nil
}

// countGap is nil when the Node's status.capacity and status.allocatable
// both hold nvidia.com/gpu = want, else names the worker, its Node and what
// each has. HAMi's plugin lists deviceSplitCount kubelet devices per card
// (HAMi pkg/device-plugin/nvidiadevice/nvinternal/plugin/server.go:1135-1137,
// rm/devices.go:195-213@v2.10.0), and the kubelet puts their number into
// both.
func countGap(tenant, worker string, n *corev1.Node, want int64) error {
	res := []gpus.Resource{{Name: gpus.ResourceGPU, Value: want}}
	var parts []string
	for _, l := range []struct {
		field string
		list  corev1.ResourceList
	}{{"capacity", n.Status.Capacity}, {"allocatable", n.Status.Allocatable}} {
		for _, m := range deviceplugin.Mismatches(l.list, res) {
			parts = append(parts, l.field+" "+m.String())
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("tenant %s worker %s (Node %s): %s (HAMi's device plugin on the node registers them with "+
		"the kubelet: read its log, pod %s-* container device-plugin)",
		tenant, worker, n.Name, strings.Join(parts, "; "), render.HAMiDevicePluginObject)
}

// cardsSeen scrapes HAMi's scheduler metrics through the tenant API server's
// service proxy (which rides the konnectivity tunnel, the lab's critical
// path) and compares the cards it reports with the lab's.
func cardsSeen(ctx context.Context, e *Env, tc *Clients, tenant string) (bool, string, error) {
	svc, err := tc.Kube.CoreV1().Services(render.HAMiNamespace).Get(ctx, hamiScheduler, metav1.GetOptions{})
	if err != nil {
		return false, "", err
	}
	port := metricsPort(svc)
	if port == 0 {
		return false, fmt.Sprintf("Service %s has no port targeting %d (ports: %v)",
			hamiScheduler, hamiMetricsTargetPort, svc.Spec.Ports), nil
	}
	body, err := tc.Kube.CoreV1().Services(render.HAMiNamespace).ProxyGet("http",
		hamiScheduler, strconv.Itoa(int(port)), "metrics", nil).DoRaw(ctx)
	if err != nil {
		return false, "", fmt.Errorf("scrape %s metrics: %w", hamiScheduler, err)
	}
	ok, cond := gpus.SeesAllCards(body, wantCards(e, tenant))
	return ok, cond, nil
}
