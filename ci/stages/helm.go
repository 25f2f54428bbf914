package stages

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// Kamaji's release layout (chart clastix/kamaji, release "kamaji").
const (
	KamajiNamespace  = lab.KamajiNamespace // a reserved tenant name (lab.validateTenantName)
	KamajiRelease    = images.ReleaseKamaji
	kamajiDeployment = "kamaji"
	// kamajiEtcd is the kamaji-etcd StatefulSet (chart fullnameOverride).
	kamajiEtcd          = "kamaji-etcd"
	defaultDataStore    = "default"
	CertManagerRelease  = images.ReleaseCertManager
	CertManagerNS       = lab.CertManagerNamespace // a reserved tenant name (lab.validateTenantName)
	certManagerWebhookD = "cert-manager-webhook"
)

// CertManagerChart is cert-manager as Kamaji's docs install it.
func CertManagerChart(l *lab.Lab, timeout time.Duration) helm.Chart {
	id := images.CertManagerChart(l)
	return helm.Chart{
		Release: CertManagerRelease, Namespace: CertManagerNS, Chart: id.Name, Repo: id.Repo,
		Version: id.Version, Set: []string{"crds.enabled=true"}, Wait: true, Timeout: timeout,
	}
}

// KamajiChart is Kamaji with the traps of UPSTREAM-FACTS.md §2 avoided: an
// explicit chart version (without it helm picks the 2024 chart 1.0.0,
// Kubernetes <= 1.30), a pinned controller image instead of :latest (Kamaji
// 26.8.2-edge charts/kamaji/Chart.yaml:2), no memory limit, no
// telemetry. Helm waits for kamaji-etcd's post-install hook Job (kamaji-etcd
// v0.17.0 templates/etcd_job_preinstall_2.yaml:7), whose images, like the
// etcd StatefulSet's, are pinned (images.KamajiEtcdSet): the chart floats
// its kamaji-etcd, and the Job's kubectl tag would otherwise follow the
// management cluster's minor, to a tag that may not exist.
func KamajiChart(l *lab.Lab, timeout time.Duration) helm.Chart {
	id := images.KamajiChart(l)
	return helm.Chart{
		Release: KamajiRelease, Namespace: KamajiNamespace, Chart: id.Name, Repo: id.Repo,
		Version: id.Version,
		Set: append([]string{
			"image.tag=" + l.Versions.KamajiImage,
			"image.pullPolicy=IfNotPresent",
			"resources=null",
			"telemetry.disabled=true",
		}, images.KamajiEtcdSet()...),
		Wait: true, Timeout: timeout,
	}
}

// HAMiChart is HAMi in a tenant with the rendered values. No --wait: the
// stage waits for scheduler, webhook and plugin itself, with conditions
// that say what is missing.
//
// The chart has no value for kube-scheduler's backoff, so the release is
// post-rendered by labctl itself (`labctl internal hami-post-render`), which puts the
// lab's scheduler configuration (render.HAMiSchedulerConfig, the one the
// local test environment runs too) into the chart's ConfigMap.
func HAMiChart(l *lab.Lab, valuesFile, labctl, schedulerConfigFile string, timeout time.Duration) helm.Chart {
	id := images.HAMiChart(l)
	return helm.Chart{
		Release: render.HAMiRelease, Namespace: render.HAMiNamespace, Chart: id.Name,
		Repo: id.Repo, Version: id.Version, ValuesFile: valuesFile, Timeout: timeout,
		PostRenderer: []string{labctl, internalCommand, PostRenderCommand, "--scheduler-config", schedulerConfigFile},
	}
}

// fromBundle installs c from the bundle's archive of it, when there is one.
func (e *Env) fromBundle(c helm.Chart) helm.Chart {
	if e.Preload != nil {
		c.Archive = e.Preload.Charts[c.Chart]
	}
	return c
}

// internalCommand is the hidden labctl command that groups what the lab's
// workers and helm run (`labctl internal …`), so that none of it is a
// user's command.
const internalCommand = "internal"

// PostRenderCommand is the labctl internal subcommand helm runs as HAMi's
// post-renderer.
const PostRenderCommand = "hami-post-render"

// helmInstall runs `helm upgrade --install` for c, first ending a revision
// that an interrupted labctl left pending (helm.Pending), which helm would
// refuse to upgrade: its record, a Secret in the release's namespace, is
// deleted through c's cluster's clients, and the install takes over what it
// made. Only one labctl at a time works on a state dir (its lock,
// state.Hold), so a pending release of the lab's is no operation still
// under way.
func (e *Env) helmInstall(ctx context.Context, kubeconfig string, cl *Clients, c helm.Chart) error {
	if out, err := e.helm(ctx, kubeconfig, helm.StatusArgs(c.Release, c.Namespace)...); err == nil {
		if st, record := helm.Pending(out); st != "" {
			e.log().Info("a helm release was left pending by an interrupted labctl; deleting that revision's record "+
				"before installing again",
				"release", c.Namespace+"/"+c.Release, "status", st, "record", "Secret "+c.Namespace+"/"+record)
			if err := cl.Kube.CoreV1().Secrets(c.Namespace).Delete(ctx, record, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete Secret %s/%s, the record of helm release %s left %s: %w", c.Namespace, record, c.Release, st, err)
			}
		}
	}
	_, err := e.helm(ctx, kubeconfig, helm.UpgradeInstallArgs(c)...)
	return err
}

// pendingPlan is the dry run's word on helmInstall's first step.
const pendingPlan = " (a revision an interrupted labctl left pending has its record Secret sh.helm.release.v1.RELEASE.vN deleted first)"
