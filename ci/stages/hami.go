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
	return e.State.Values(valuesName(tenant))
}

// valuesName is the name of a tenant's HAMi values file in the state dir.
func valuesName(tenant string) string { return "hami-" + tenant + ".yaml" }

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
		if !hamiStateOf(ctx, e, t).there() {
			return false, "", nil
		}
	}
	return true, fmt.Sprintf("HAMi %s ready in %s", e.Lab.Versions.HAMiChart, strings.Join(e.Lab.TenantNames(), ", ")), nil
}

// hamiState is what of a tenant's HAMi is there.
type hamiState struct {
	// release: deployed at the lab's chart version, with the lab's
	// scheduler configuration.
	release bool
	// gpuNodes: how many of the lab file's workers are labelled GPU
	// nodes; nodes: all of them, with nvml-mock ready on each.
	gpuNodes int
	nodes    bool
	// ready: the scheduler and its webhook.
	ready bool
}

func (s hamiState) there() bool { return s.release && s.nodes && s.ready }

// onlyAddedWorkers: HAMi runs in the tenant, on its GPU nodes, and only
// workers added since are not GPU nodes yet: making them so is all there
// is to do (the release stays as it is).
func (s hamiState) onlyAddedWorkers() bool { return s.release && s.ready && s.gpuNodes > 0 && !s.nodes }

// hamiStateOf reads what of the tenant's HAMi is there; without its
// release it reads no further.
func hamiStateOf(ctx context.Context, e *Env, t lab.Tenant) hamiState {
	var s hamiState
	out, err := e.helm(ctx, e.State.Kubeconfig(t.Name), helm.StatusArgs(render.HAMiRelease, render.HAMiNamespace)...)
	if err != nil {
		return s
	}
	if ok, _ := helm.ReleaseDeployed(out, e.Lab.Versions.HAMiChart); !ok {
		return s
	}
	if ok, err := schedulerConfigInstalled(ctx, e, t.Name); err != nil || !ok {
		return s
	}
	s.release = true
	tc, err := e.tenantClients(t.Name)
	if err != nil {
		return s
	}
	s.gpuNodes = gpuNodesLabelled(ctx, e, tc, t)
	ok, _, err := gpuNodesReady(ctx, e, tc, t)
	s.nodes = err == nil && ok
	ok, _, err = hamiReady(ctx, e, t.Name)
	s.ready = err == nil && ok
	return s
}

// Run installs HAMi into every tenant whose HAMi is not there: a tenant
// added to a running lab gets its own, a running tenant with workers added
// has only them made GPU nodes (its release stays as it is), and the
// running tenants are left as they are.
func (hamiStage) Run(ctx context.Context, e *Env) (string, error) {
	r := newHAMiRun(e)
	r.tenants = nil
	for _, t := range e.Lab.Tenants {
		switch s := hamiStateOf(ctx, e, t); {
		case s.there():
			r.ready[t.Name] = "already there"
			continue
		case s.onlyAddedWorkers():
			r.nodesOnly[t.Name] = true
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
