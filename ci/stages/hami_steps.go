package stages

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// hamiRun is one run of the hami stage.
type hamiRun struct {
	e       *Env
	tenants []lab.Tenant // those to install into: the lab's, or those without HAMi (Run)
	// nodesOnly are the tenants whose release is there and whose added
	// workers only need to be made GPU nodes (Run).
	nodesOnly map[string]bool

	mu    sync.Mutex
	ready map[string]string // each tenant's HAMi condition, once ready
}

func newHAMiRun(e *Env) *hamiRun {
	return &hamiRun{e: e, tenants: e.Lab.Tenants, nodesOnly: map[string]bool{}, ready: map[string]string{}}
}

// steps are the stage's steps: what its dry-run prints and its Run does.
// The tenants side by side: each tenant's GPU nodes, helm install and
// HAMi's readiness wait on its own API server and pods, not on the others'.
func (r *hamiRun) steps() (steps.Step, error) {
	e := r.e
	cfg, err := schedulerConfig(e)
	if err != nil {
		return steps.Step{}, err
	}
	var tenants []steps.Step
	for _, t := range r.tenants {
		s, err := r.tenantSteps(t)
		if err != nil {
			return steps.Step{}, err
		}
		tenants = append(tenants, s)
	}
	return steps.Seq(
		steps.Do(func(context.Context) error { return r.writeSchedulerConfig(cfg) },
			fmt.Sprintf("write %s (put into ConfigMap %s/%s key %s by the post-renderer):\n%s",
				schedulerConfigFile(e), render.HAMiNamespace, render.HAMiSchedulerObject, render.HAMiSchedulerConfigKey, indent(string(cfg)))),
		tenantsSideBySide(tenants),
	), nil
}

// tenantSteps make a tenant's workers GPU nodes, install HAMi into the
// tenant with its rendered values and wait for its scheduler and webhook.
func (r *hamiRun) tenantSteps(t lab.Tenant) (steps.Step, error) {
	e := r.e
	clients := func() (*Clients, error) {
		tc, err := e.tenantClients(t.Name)
		if err != nil {
			return nil, fail(stageHAMi, "tenant "+t.Name, "", err)
		}
		return tc, nil
	}
	gpuNodes, err := gpuNodeSteps(e, t, clients)
	if err != nil {
		return steps.Step{}, err
	}
	wait := steps.Do(func(ctx context.Context) error { return r.wait(ctx, t) },
		fmt.Sprintf("wait in tenant %s: Deployment %s/%s available, MutatingWebhookConfiguration %s has a "+
			"caBundle (%s)", t.Name, render.HAMiNamespace, hamiScheduler, hamiWebhook, e.Timeouts.Rollout))
	if r.nodesOnly[t.Name] {
		return steps.Seq(append(gpuNodes, wait)...), nil
	}
	y, err := hamiValues(e, t)
	if err != nil {
		return steps.Step{}, err
	}
	vf := valuesFile(e, t.Name)
	c := hamiChart(e, t.Name)
	return steps.Seq(append(gpuNodes,
		steps.Do(func(context.Context) error { return r.writeValues(t, y) },
			fmt.Sprintf("write %s:\n%s", vf, indent(string(y)))),
		steps.Do(func(ctx context.Context) error {
			tc, err := clients()
			if err != nil {
				return err
			}
			if err := e.helmInstall(ctx, e.State.Kubeconfig(t.Name), tc, c); err != nil {
				return fail(stageHAMi, "helm release "+c.Namespace+"/"+c.Release+" in tenant "+t.Name, "chart "+c.Chart+" "+c.Version, err)
			}
			return nil
		}, "helm --kubeconfig "+e.State.Kubeconfig(t.Name)+" "+strings.Join(helm.UpgradeInstallArgs(c), " ")+pendingPlan),
		wait,
	)...), nil
}

// hamiValues are a tenant's HAMi values as written to its values file.
func hamiValues(e *Env, t lab.Tenant) ([]byte, error) {
	v, err := render.HAMiValuesFor(e.Lab, t.Name)
	if err != nil {
		return nil, fmt.Errorf("HAMi values for tenant %s: %w", t.Name, err)
	}
	return yaml.Marshal(v)
}

func (r *hamiRun) writeSchedulerConfig(cfg []byte) error {
	e := r.e
	if err := e.State.WriteValuesFile(schedulerConfigFile(e), cfg); err != nil {
		return fail(stageHAMi, schedulerConfigFile(e), "", err)
	}
	return nil
}

func (r *hamiRun) writeValues(t lab.Tenant, y []byte) error {
	vf := valuesFile(r.e, t.Name)
	if err := r.e.State.WriteValuesFile(vf, y); err != nil {
		return fail(stageHAMi, vf, "", err)
	}
	return nil
}

func (r *hamiRun) wait(ctx context.Context, t lab.Tenant) error {
	e := r.e
	cond, err := e.wait(ctx, e.Timeouts.Rollout, "HAMi in tenant "+t.Name, func(ctx context.Context) (bool, string, error) {
		return hamiReady(ctx, e, t.Name)
	})
	if err != nil {
		return fail(stageHAMi, "HAMi in tenant "+t.Name, cond, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ready[t.Name] = cond
	return nil
}
