package stages

import (
	"context"
	"fmt"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// tenantsRun is one run of the tenants stage: its steps, and what its
// first step reads for the later ones.
type tenantsRun struct {
	e      *Env
	mc     *Clients
	opts   render.Options
	policy string // what the bundle's pull policy step did ("" without a bundle)

	mu    sync.Mutex
	ready map[string]string // each tenant's Ready condition, once Ready
}

func newTenantsRun(e *Env) *tenantsRun { return &tenantsRun{e: e, ready: map[string]string{}} }

// steps are the stage's steps: what its dry-run prints and its Run does.
// Every tenant's TenantControlPlane is applied before the first wait, so
// Kamaji provisions them at the same time; their waits run side by side.
func (r *tenantsRun) steps() (steps.Step, error) {
	e := r.e
	o := e.Reach.renderOptions(render.PlaceholderManagementAddress)
	out := []steps.Step{steps.Do(r.connect,
		fmt.Sprintf("docker container inspect %s → IPv4 on network %s: the management address (%s below)",
			e.controlPlaneContainer(), e.Network, render.PlaceholderManagementAddress))}
	for _, t := range e.Lab.Tenants {
		out = append(out, steps.Do(func(ctx context.Context) error { return r.namespace(ctx, t) },
			fmt.Sprintf("apply Namespace %s", render.TenantNamespace(t.Name))))
	}
	// With a bundle, before any control-plane pod exists.
	policy, err := bundlePullPolicyPlan(e)
	if err != nil {
		return steps.Step{}, err
	}
	if len(policy) > 0 {
		out = append(out, steps.Do(r.pullPolicy, policy...))
	}
	var waits []steps.Step
	for _, t := range e.Lab.Tenants {
		tcp, err := render.TenantControlPlaneFor(e.Lab, t.Name, o)
		if err != nil {
			return steps.Step{}, err
		}
		y, err := yaml.Marshal(tcp)
		if err != nil {
			return steps.Step{}, err
		}
		ns := render.TenantNamespace(t.Name)
		out = append(out, steps.Do(func(ctx context.Context) error { return r.apply(ctx, t) },
			fmt.Sprintf("apply TenantControlPlane %s/%s (management address = the control-plane node's IPv4, %s here):\n%s", ns, t.Name,
				render.PlaceholderManagementAddress, indent(string(y)))))
		waits = append(waits, steps.Do(func(ctx context.Context) error { return r.wait(ctx, t) },
			fmt.Sprintf("wait TenantControlPlane %s/%s status.kubernetesResources.version.status == Ready (%s)",
				ns, t.Name, e.Timeouts.TenantReady),
			fmt.Sprintf("read Secret %s/%s-admin-kubeconfig key admin.conf, server → %s, write %s",
				ns, t.Name, e.Reach.tenantServer(render.PlaceholderManagementAddress, t.Ports.APIServer), e.State.Kubeconfig(t.Name)),
			fmt.Sprintf("wait until that admin can list Nodes in tenant %s (Kamaji's soot controller writes its "+
				"RBAC after Ready) (%s)", t.Name, e.Timeouts.Rollout)))
	}
	side := ""
	if len(waits) > 1 {
		side = "the tenants' waits below run side by side; the first failure stops the others and is the one reported"
	}
	return steps.Seq(append(out, steps.SideBySide(side, waits...))...), nil
}

// connect reads the management cluster's clients and the render options.
func (r *tenantsRun) connect(ctx context.Context) error {
	var err error
	if r.mc, err = r.e.managementClients(); err != nil {
		return fail(stageTenants, "management cluster", "", err)
	}
	if r.opts, err = r.e.renderOptions(ctx); err != nil {
		return fail(stageTenants, "management node", "", err)
	}
	return nil
}

func (r *tenantsRun) namespace(ctx context.Context, t lab.Tenant) error {
	if err := r.mc.serverSideApplier().ApplyAll(ctx, render.Namespace(r.e.Lab, t.Name)); err != nil {
		return fail(stageTenants, "Namespace "+render.TenantNamespace(t.Name), "apply", err)
	}
	return nil
}

func (r *tenantsRun) pullPolicy(ctx context.Context) error {
	var err error
	r.policy, err = ensureBundlePullPolicy(ctx, r.e, r.mc)
	return err
}

func (r *tenantsRun) apply(ctx context.Context, t lab.Tenant) error {
	ns := render.TenantNamespace(t.Name)
	tcp, err := render.TenantControlPlaneFor(r.e.Lab, t.Name, r.opts)
	if err != nil {
		return fail(stageTenants, "TenantControlPlane "+ns+"/"+t.Name, "render", err)
	}
	if err := r.mc.serverSideApplier().ApplyAll(ctx, tcp); err != nil {
		return fail(stageTenants, "TenantControlPlane "+ns+"/"+t.Name, "apply", err)
	}
	return nil
}

func (r *tenantsRun) wait(ctx context.Context, t lab.Tenant) error {
	cond, err := tenantReady(ctx, r.e, r.mc, t, r.opts)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ready[t.Name] = cond
	return nil
}
