package stages

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// HAMi's objects for release "hami" (chart hami 2.10.0).
const (
	hamiScheduler = render.HAMiRelease + "-scheduler"
	hamiWebhook   = render.HAMiRelease + "-webhook"
)

// hamiStage makes every worker a GPU node for HAMi's own device plugin —
// label gpu=on, the mock NVML library with the worker's cards
// (nvmlmock.go) — then installs HAMi into every tenant with the rendered
// values, which run the chart's device plugin and vGPU monitor on those
// workers, and waits for the scheduler and its webhook. The gpus stage
// waits for the plugin's registration.
type hamiStage struct{}

func (hamiStage) Name() string { return stageHAMi }

// valuesFile is where the stage writes a tenant's HAMi values (kept in the
// state dir so a user can see exactly what was installed).
func valuesFile(e *Env, tenant string) string {
	return e.State.Values("hami-" + tenant + ".yaml")
}

// schedulerConfigFile is where the stage writes the kube-scheduler
// configuration the post-renderer puts into HAMi's chart (one for the lab:
// it does not depend on the tenant).
func schedulerConfigFile(e *Env) string {
	return e.State.Values("hami-scheduler-config.yaml")
}

func hamiChart(e *Env, tenant string) helm.Chart {
	return e.fromBundle(HAMiChart(e.Lab, valuesFile(e, tenant), labctlPath(e), schedulerConfigFile(e), e.Timeouts.Helm))
}

// schedulerConfig is the kube-scheduler configuration of HAMi's chart with
// the lab's backoff, as the post-renderer installs it.
func schedulerConfig(e *Env) ([]byte, error) {
	return render.HAMiSchedulerConfig(e.Lab, render.ChartPlace())
}

func (hamiStage) Plan(e *Env) ([]string, error) { return planOf(newHAMiRun(e).steps) }

func (hamiStage) Check(ctx context.Context, e *Env) (bool, string, error) {
	for _, t := range e.Lab.Tenants {
		if !hamiThere(ctx, e, t) {
			return false, "", nil
		}
	}
	return true, fmt.Sprintf("HAMi %s ready in %s", e.Lab.Versions.HAMiChart, strings.Join(e.Lab.TenantNames(), ", ")), nil
}

// hamiThere reports whether the tenant's HAMi is installed and ready: its
// release deployed at the lab's chart version, the scheduler configuration,
// its GPU nodes, its scheduler and webhook.
func hamiThere(ctx context.Context, e *Env, t lab.Tenant) bool {
	out, err := e.helm(ctx, e.State.Kubeconfig(t.Name), helm.StatusArgs(render.HAMiRelease, render.HAMiNamespace)...)
	if err != nil {
		return false
	}
	if ok, _ := helm.ReleaseDeployed(out, e.Lab.Versions.HAMiChart); !ok {
		return false
	}
	if ok, err := schedulerConfigInstalled(ctx, e, t.Name); err != nil || !ok {
		return false
	}
	tc, err := e.tenantClients(t.Name)
	if err != nil {
		return false
	}
	if ok, _, err := gpuNodesReady(ctx, e, tc, t); err != nil || !ok {
		return false
	}
	ok, _, err := hamiReady(ctx, e, t.Name)
	return err == nil && ok
}

// Run installs HAMi into every tenant whose HAMi is not there (hamiThere):
// a tenant added to a running lab gets its own, and the running tenants'
// are left as they are.
func (hamiStage) Run(ctx context.Context, e *Env) (string, error) {
	r := newHAMiRun(e)
	r.tenants = nil
	for _, t := range e.Lab.Tenants {
		if hamiThere(ctx, e, t) {
			r.ready[t.Name] = "already there"
			continue
		}
		r.tenants = append(r.tenants, t)
	}
	if err := e.runBuilt(ctx, stageHAMi, r.steps); err != nil {
		return "", err
	}
	var conds []string
	for _, t := range e.Lab.Tenants {
		conds = append(conds, t.Name+": "+r.ready[t.Name])
	}
	return strings.Join(conds, "; "), nil
}

func hamiReady(ctx context.Context, e *Env, tenant string) (bool, string, error) {
	tc, err := e.tenantClients(tenant)
	if err != nil {
		return false, "", err
	}
	ns := render.HAMiNamespace
	d, err := tc.Kube.AppsV1().Deployments(ns).Get(ctx, hamiScheduler, metav1.GetOptions{})
	if err != nil {
		return false, "Deployment " + hamiScheduler + ": " + err.Error(), nil
	}
	if ok, cond := kube.DeploymentReady(d); !ok {
		return false, "scheduler " + cond, nil
	}
	w, err := tc.Kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, hamiWebhook, metav1.GetOptions{})
	if err != nil {
		return false, "MutatingWebhookConfiguration " + hamiWebhook + ": " + err.Error(), nil
	}
	if ok, cond := kube.WebhookReady(w); !ok {
		return false, cond, nil
	}
	return true, "scheduler and webhook ready", nil
}

// schedulerConfigInstalled tells whether HAMi's kube-scheduler ConfigMap in
// a tenant holds the lab's configuration (an install from before the
// post-renderer, or with other lab settings, does not).
func schedulerConfigInstalled(ctx context.Context, e *Env, tenant string) (bool, error) {
	tc, err := e.tenantClients(tenant)
	if err != nil {
		return false, err
	}
	want, err := schedulerConfig(e)
	if err != nil {
		return false, err
	}
	cm, err := tc.Kube.CoreV1().ConfigMaps(render.HAMiNamespace).Get(ctx, render.HAMiSchedulerObject, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	return cm.Data[render.HAMiSchedulerConfigKey] == string(want), nil
}
