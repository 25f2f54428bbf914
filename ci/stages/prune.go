package stages

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// stagePrune names the removal of what a changed lab file no longer has in
// its errors and log lines; it is no stage of All: it runs before them.
const stagePrune = "prune"

// Prune removes from the running lab what the lab file e.Lab no longer
// has (c: lab.Changes against the recorded lab) — only those objects,
// only where this state dir's labctl made them:
//
//   - a removed tenant: its worker containers, its TenantControlPlane
//     (Kamaji's finalizer cleans its data out of the datastore: Kamaji
//     26.8.2-edge controllers/tenantcontrolplane_controller.go:203-221),
//     then its Namespace (with its Services, so its NodePorts are free for
//     a tenant added later), and its kubeconfig and values in the state dir;
//   - a worker removed from a running tenant: its container, then its Node
//     (no kubelet is left to register it again) and the pods bound to it,
//     and the tenant's nvml-mock
//     objects applied without its cards where the hami stage applied them.
//
// The running tenants and their other workers are not touched. What is
// already gone is not an error, so an interrupted Prune is taken on by the
// next `up` (the recorded lab is written only after Prune). It returns
// what it removed, in the lab's order.
func Prune(ctx context.Context, e *Env, c lab.Change) ([]string, error) {
	p := &pruneRun{e: e, c: c}
	if err := e.runSteps(ctx, stagePrune, p.steps()); err != nil {
		return p.removed(), err
	}
	return p.removed(), nil
}

// PrunePlan is what Prune would do, as a dry-run prints it.
func PrunePlan(e *Env, c lab.Change) []string { return (&pruneRun{e: e, c: c}).steps().Plan() }

// pruneRun is one run of Prune.
type pruneRun struct {
	e *Env
	c lab.Change

	mu   sync.Mutex
	done map[string][]string // what went, per tenant
}

// steps: the removed tenants side by side, each on its own objects; the
// running tenants' removed workers side by side.
func (p *pruneRun) steps() steps.Step {
	var tenants []steps.Step
	for _, t := range p.c.RemovedTenants {
		tenants = append(tenants, p.tenantSteps(t))
	}
	for _, t := range p.e.Lab.Tenants {
		var gone []string
		for _, w := range p.c.RemovedWorkers {
			if w.Tenant == t.Name {
				gone = append(gone, w.Worker)
			}
		}
		if len(gone) > 0 {
			tenants = append(tenants, p.workerSteps(t, gone))
		}
	}
	return tenantsSideBySide(tenants)
}

func (p *pruneRun) tenantSteps(t lab.Tenant) steps.Step {
	e, ns := p.e, render.TenantNamespace(t.Name)
	var containers []string
	for _, w := range t.Workers {
		containers = append(containers, e.Lab.NodeName(t.Name, w.Name))
	}
	values := valuesName(t.Name)
	return steps.Seq(
		steps.Do(func(ctx context.Context) error { return p.removeContainers(ctx, t.Name, containers) },
			fmt.Sprintf("tenant %s removed: docker rm -f %s (each only when labelled as this state dir's worker of %s)",
				t.Name, strings.Join(containers, " "), t.Name)),
		steps.Do(func(ctx context.Context) error { return p.removeControlPlane(ctx, t.Name) },
			fmt.Sprintf("delete TenantControlPlane %s/%s, wait until Kamaji has cleaned it up and it is gone (%s)",
				ns, t.Name, e.Timeouts.TenantReady),
			fmt.Sprintf("delete Namespace %s (only when labelled %s=%s, %s=%s), wait until it is gone (%s)", ns,
				render.LabelLab, e.Lab.Name, render.LabelTenant, t.Name, e.Timeouts.TenantReady)),
		steps.Do(func(context.Context) error { return p.removeState(t.Name, values) },
			fmt.Sprintf("remove %s and %s from the state dir", e.State.Kubeconfig(t.Name), e.State.Values(values))),
	)
}

func (p *pruneRun) workerSteps(t lab.Tenant, gone []string) steps.Step {
	e := p.e
	var nodes []string
	for _, w := range gone {
		nodes = append(nodes, e.Lab.NodeName(t.Name, w))
	}
	return steps.Seq(
		steps.Do(func(ctx context.Context) error { return p.removeContainers(ctx, t.Name, nodes) },
			fmt.Sprintf("tenant %s: docker rm -f %s (each only when labelled as this state dir's worker of %s)",
				t.Name, strings.Join(nodes, " "), t.Name)),
		steps.Do(func(ctx context.Context) error { return p.removeNodes(ctx, t, nodes) },
			fmt.Sprintf("tenant %s: delete Node(s) %s and the pods bound to them (grace 0: their containers are gone); "+
				"where ConfigMap %s/%s is there (the hami stage ran), apply the "+
				"nvml-mock objects without their cards and wait for them on the %d other worker(s) (%s)", t.Name,
				strings.Join(nodes, ", "), render.HAMiNamespace, render.NVMLMockName, len(t.Workers), e.Timeouts.Rollout)),
	)
}

func (p *pruneRun) gone(tenant string, what ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		p.done = map[string][]string{}
	}
	p.done[tenant] = append(p.done[tenant], what...)
}

// removed is what went, the removed tenants first, in the lab's order.
func (p *pruneRun) removed() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, t := range p.c.RemovedTenants {
		out = append(out, p.done[t.Name]...)
	}
	for _, t := range p.e.Lab.Tenants {
		out = append(out, p.done[t.Name]...)
	}
	return out
}

// removeContainers removes the tenant's worker containers named, each only
// when this state dir's labctl started it for that tenant (workerOwned).
func (p *pruneRun) removeContainers(ctx context.Context, tenant string, names []string) error {
	e := p.e
	for _, n := range names {
		c, err := e.Docker.InspectContainer(ctx, n)
		if docker.IsNotFound(err) {
			continue
		}
		if err != nil {
			return fail(stagePrune, "container "+n, "", err)
		}
		if err := e.workerOwned(c, tenant); err != nil {
			return fail(stagePrune, "container "+n, "", fmt.Errorf("%w; it stays (remove it yourself if it is yours to remove)", err))
		}
		if err := e.Docker.RemoveContainer(ctx, n); err != nil {
			return fail(stagePrune, "container "+n, "", err)
		}
		p.gone(tenant, "container "+n)
	}
	return nil
}
