package stages

import (
	"context"
	"fmt"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// dataStoreGVR is Kamaji's cluster-scoped DataStore.
var dataStoreGVR = schema.GroupVersionResource{Group: "kamaji.clastix.io", Version: "v1alpha1", Resource: "datastores"}

// kamajiStage installs cert-manager and Kamaji (with its default etcd
// DataStore) into the management cluster.
type kamajiStage struct{}

func (kamajiStage) Name() string { return stageKamaji }

func (kamajiStage) charts(e *Env) []helm.Chart {
	return []helm.Chart{e.fromBundle(CertManagerChart(e.Lab, e.Timeouts.Helm)), e.fromBundle(KamajiChart(e.Lab, e.Timeouts.Helm))}
}

func (s kamajiStage) Plan(e *Env) ([]string, error) { return s.steps(e, new(string)).Plan(), nil }

// steps are the stage's steps: what its dry-run prints and its Run does;
// the last one leaves Kamaji's condition in ready. With a bundle each
// release's images go into the management node before its install, and
// Kamaji's while cert-manager installs: the rehearsal of 2026-12-07 spent
// 35 s importing the stage's eight images before its first install, and
// cert-manager's install then waited 17 s on its pods and its webhook
// (ci/hack/rehearsal/testdata/runs/2026-12-07-steps-timeline).
func (s kamajiStage) steps(e *Env, ready *string) steps.Step {
	charts := s.charts(e)
	out := []steps.Step{e.preloadStep(stageKamaji, charts[0].Release, true)}
	for i, c := range charts {
		install := steps.Do(func(ctx context.Context) error { return kamajiInstall(ctx, e, c) },
			"helm --kubeconfig "+e.State.ManagementKubeconfig()+" "+strings.Join(helm.UpgradeInstallArgs(c), " ")+pendingPlan)
		if i+1 < len(charts) {
			install = besidePreload(install, e.preloadStep(stageKamaji, charts[i+1].Release, true))
		}
		out = append(out, install)
	}
	return steps.Seq(append(out, steps.Do(func(ctx context.Context) (err error) { *ready, err = kamajiWait(ctx, e); return err },
		fmt.Sprintf("wait Deployment %s/%s available (%s)", KamajiNamespace, kamajiDeployment, e.Timeouts.Rollout),
		fmt.Sprintf("wait StatefulSet %s/%s ready and DataStore %s present", KamajiNamespace, kamajiEtcd, defaultDataStore)))...)
}

// besidePreload runs step and the next release's preload side by side; step
// alone when there is nothing to preload.
func besidePreload(step, preload steps.Step) steps.Step {
	if len(preload.Plan()) == 0 {
		return step
	}
	return steps.SideBySide("side by side, the next release's images go into the node while this one installs:", step, preload)
}

// kamajiInstall installs one of the stage's charts.
func kamajiInstall(ctx context.Context, e *Env, c helm.Chart) error {
	mc, err := e.managementClients()
	if err != nil {
		return fail(stageKamaji, "management cluster", "", err)
	}
	if err := e.helmInstall(ctx, e.State.ManagementKubeconfig(), mc, c); err != nil {
		return fail(stageKamaji, "helm release "+c.Namespace+"/"+c.Release, "chart "+c.Chart+" "+c.Version, err)
	}
	return nil
}

// kamajiWait waits for Kamaji's controller, its etcd and its DataStore.
func kamajiWait(ctx context.Context, e *Env) (string, error) {
	cond, err := e.wait(ctx, e.Timeouts.Rollout, "Kamaji", func(ctx context.Context) (bool, string, error) {
		return kamajiReady(ctx, e)
	})
	if err != nil {
		return "", fail(stageKamaji, "Kamaji in "+KamajiNamespace, cond, err)
	}
	return cond, nil
}

func (s kamajiStage) Check(ctx context.Context, e *Env) (bool, string, error) {
	for _, c := range s.charts(e) {
		out, err := e.helm(ctx, e.State.ManagementKubeconfig(), helm.StatusArgs(c.Release, c.Namespace)...)
		if err != nil {
			return false, "", nil // not installed
		}
		if ok, _ := helm.ReleaseDeployed(out, c.Version); !ok {
			return false, "", nil
		}
	}
	ok, cond, err := kamajiReady(ctx, e)
	if err != nil || !ok {
		return false, "", nil
	}
	return true, "cert-manager and Kamaji deployed; " + cond, nil
}

func (s kamajiStage) Run(ctx context.Context, e *Env) (string, error) {
	var cond string
	if err := e.runSteps(ctx, stageKamaji, s.steps(e, &cond)); err != nil {
		return "", err
	}
	return fmt.Sprintf("cert-manager %s, Kamaji %s (chart %s): %s",
		e.Lab.Versions.CertManager, e.Lab.Versions.KamajiImage, e.Lab.Versions.KamajiChart, cond), nil
}

func kamajiReady(ctx context.Context, e *Env) (bool, string, error) {
	c, err := e.managementClients()
	if err != nil {
		return false, "", err
	}
	d, err := c.Kube.AppsV1().Deployments(KamajiNamespace).Get(ctx, kamajiDeployment, metav1.GetOptions{})
	if err != nil {
		return false, "Deployment " + kamajiDeployment + ": " + err.Error(), nil
	}
	if ok, cond := kube.DeploymentReady(d); !ok {
		return false, "controller " + cond, nil
	}
	sts, err := c.Kube.AppsV1().StatefulSets(KamajiNamespace).Get(ctx, kamajiEtcd, metav1.GetOptions{})
	if err != nil {
		return false, "StatefulSet " + kamajiEtcd + ": " + err.Error(), nil
	}
	if ok, cond := kube.StatefulSetReady(sts); !ok {
		return false, "etcd " + cond, nil
	}
	if _, err := c.Dynamic.Resource(dataStoreGVR).Get(ctx, defaultDataStore, metav1.GetOptions{}); err != nil {
		return false, "DataStore " + defaultDataStore + ": " + err.Error(), nil
	}
	return true, "controller available, etcd ready, DataStore " + defaultDataStore + " present", nil
}
