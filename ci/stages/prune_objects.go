package stages

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// The Kubernetes objects and state files Prune removes (prune.go).

// removeControlPlane deletes a removed tenant's TenantControlPlane and
// waits until it is gone — Kamaji removes its finalizer once the tenant's
// data is out of the datastore — then deletes the tenant's Namespace when
// it carries the labels the tenants stage gave it (render.Namespace), and
// waits until it is gone too.
func (p *pruneRun) removeControlPlane(ctx context.Context, tenant string) error {
	e, ns := p.e, render.TenantNamespace(tenant)
	mc, err := e.managementClients()
	if err != nil {
		return fail(stagePrune, "management cluster", "", err)
	}
	tcps := mc.Dynamic.Resource(tcpGVR).Namespace(ns)
	obj := "TenantControlPlane " + ns + "/" + tenant
	err = tcps.Delete(ctx, tenant, metav1.DeleteOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fail(stagePrune, obj, "delete", err)
	default:
		cond, err := e.wait(ctx, e.Timeouts.TenantReady, obj+" gone", func(ctx context.Context) (bool, string, error) {
			u, err := tcps.Get(ctx, tenant, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, "gone", nil
			}
			if err != nil {
				return false, "", err
			}
			return false, fmt.Sprintf("being deleted, finalizers %v", u.GetFinalizers()), nil
		})
		if err != nil {
			return fail(stagePrune, obj, cond+" (Kamaji's controller log says why it keeps it)", err)
		}
		p.gone(tenant, obj)
	}
	nss := mc.Kube.CoreV1().Namespaces()
	n, err := nss.Get(ctx, ns, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fail(stagePrune, "Namespace "+ns, "", err)
	}
	if n.Labels[render.LabelLab] != e.Lab.Name || n.Labels[render.LabelTenant] != tenant {
		return failf(stagePrune, "Namespace "+ns, "", "not labelled %s=%s, %s=%s as the tenants stage labels a tenant's "+
			"namespace: it stays (delete it yourself if it is yours to remove)", render.LabelLab, e.Lab.Name, render.LabelTenant, tenant)
	}
	if err := nss.Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fail(stagePrune, "Namespace "+ns, "delete", err)
	}
	cond, err := e.wait(ctx, e.Timeouts.TenantReady, "Namespace "+ns+" gone", func(ctx context.Context) (bool, string, error) {
		n, err := nss.Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, "gone", nil
		}
		if err != nil {
			return false, "", err
		}
		return false, "phase " + string(n.Status.Phase), nil
	})
	if err != nil {
		return fail(stagePrune, "Namespace "+ns, cond, err)
	}
	p.gone(tenant, "Namespace "+ns)
	return nil
}

// removePodsOn deletes the pods bound to a removed worker's Node, at once:
// their containers went with the worker. Left alone, the pod GC deletes
// them only after its 40 s quarantine (kubernetes v1.36.4
// pkg/controller/podgc/gc_controller.go:51), and until then no DaemonSet
// of the tenant counts the Node as gone — the DaemonSet controller has no
// handler for a deleted Node (pkg/controller/daemon/daemon_controller.go:
// 272-280): the nvml-mock wait below took 48 s on the rehearsal.
func (p *pruneRun) removePodsOn(ctx context.Context, tc *Clients, tenant, node string) error {
	pods, err := tc.Kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return fail(stagePrune, "pods on Node "+node+" in tenant "+tenant, "list", err)
	}
	zero := int64(0)
	n := 0
	for _, pod := range pods.Items {
		if pod.Spec.NodeName != node {
			continue
		}
		err := tc.Kube.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
		if err != nil && !apierrors.IsNotFound(err) {
			return fail(stagePrune, "Pod "+pod.Namespace+"/"+pod.Name+" in tenant "+tenant, "delete", err)
		}
		n++
	}
	if n > 0 {
		p.gone(tenant, fmt.Sprintf("%d pod(s) bound to Node %s in tenant %s", n, node, tenant))
	}
	return nil
}

// removeState removes a removed tenant's kubeconfig and values file from
// the state dir, and the clients Env cached for it.
func (p *pruneRun) removeState(tenant, values string) error {
	e := p.e
	files, err := e.State.RemoveTenantState(tenant, values)
	if err != nil {
		return fail(stagePrune, "state dir "+string(e.State), "", err)
	}
	e.forget(tenant)
	p.gone(tenant, files...)
	return nil
}

// removeNodes deletes the Nodes of workers removed from running tenant t
// (their containers are gone: no kubelet registers them again), then, where
// the hami stage applied the tenant's nvml-mock objects, applies them as
// the lab file renders them — without the removed workers' cards — and
// waits for them on the tenant's other workers.
func (p *pruneRun) removeNodes(ctx context.Context, t lab.Tenant, nodes []string) error {
	e := p.e
	tc, err := e.tenantClients(t.Name)
	if err != nil {
		return fail(stagePrune, "tenant "+t.Name, "", err)
	}
	for _, n := range nodes {
		err := tc.Kube.CoreV1().Nodes().Delete(ctx, n, metav1.DeleteOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return fail(stagePrune, "Node "+n+" in tenant "+t.Name, "delete", err)
		default:
			p.gone(t.Name, "Node "+n+" in tenant "+t.Name)
		}
		if err := p.removePodsOn(ctx, tc, t.Name, n); err != nil {
			return err
		}
	}
	_, err = tc.Kube.CoreV1().ConfigMaps(render.HAMiNamespace).Get(ctx, render.NVMLMockName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fail(stagePrune, "ConfigMap "+render.HAMiNamespace+"/"+render.NVMLMockName+" in tenant "+t.Name, "", err)
	}
	clients := func() (*Clients, error) { return tc, nil }
	if err := applyNVMLMock(ctx, e, clients, t); err != nil {
		return err
	}
	p.gone(t.Name, "the removed workers' cards from ConfigMap "+render.HAMiNamespace+"/"+render.NVMLMockName+" in tenant "+t.Name)
	return nil
}
