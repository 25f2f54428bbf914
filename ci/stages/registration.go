package stages

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// The hami stage registers every worker's GPUs BEFORE it installs HAMi.
//
// HAMi v2.10.0's scheduler reads a node's cards only in its registration
// pass (pkg/scheduler/scheduler.go, RegisterFromNodeAnnotations), which runs
// on a Node add event, on becoming leader and on a fixed
// time.NewTicker(time.Second * 15), and skips every trigger until the
// scheduler has started; annotation updates in between are not watched
// (the node informer has no UpdateFunc). Until a pass has seen a card,
// Filter answers "node unregistered" and kube-scheduler parks the pod for its
// 5-minute unschedulable flush (HAMI-FACTS.md §5.2). Registered first,
// the cards are on the Nodes for HAMi's first pass after start, at the latest
// its first tick 15 s after start, which the stage's own waits for the
// scheduler and its webhook usually outlast. Registered after the install
// (as the gpus stage did), they waited up to one more tick.
//
// The registration also carries the GPU resources the kubelet admits pods
// against (gpus.Advertised: nvidia.com/gpu, gpumem, gpucores,
// gpumem-percentage), which HAMi's mock device plugin used to advertise; the
// lab runs no device plugin (render.HAMiValuesFor says why).
//
// The gpus stage keeps the readiness gates: each worker's allocatable GPU
// resources equal the inventory's (deviceplugin.AllocatableGaps), and HAMi's
// /metrics lists every card (gpus.SeesAllCards). The bind finalizer it
// deploys re-asserts the same registration with the same
// deviceplugin.RegisterNode, so nothing here changes what the finalizer
// writes.

// registrationPlan lists the Node patches of a tenant's workers, from the
// rendered registration `labctl plan -o` shows.
func registrationPlan(e *Env, t lab.Tenant) ([]string, error) {
	var out []string
	for _, w := range t.Workers {
		reg, err := render.WorkerRegistration(e.Lab, t.Name, w.Name)
		if err != nil {
			return nil, err
		}
		var res []string
		for _, r := range gpus.Advertised(e.Lab, t.Name, w) {
			res = append(res, fmt.Sprintf("%s=%d", r.Name, r.Value))
		}
		out = append(out, fmt.Sprintf("tenant %s: patch Node %s before HAMi starts: label %s=%s, annotation %s=%s, status capacity+allocatable %s",
			t.Name, reg.NodeName, gpus.LabelGPUNode, reg.Labels[gpus.LabelGPUNode], gpus.AnnoRegister, reg.Annotations[gpus.AnnoRegister], strings.Join(res, " ")))
	}
	return out, nil
}

// registerWorkers writes every worker's GPU registration onto its Node.
func registerWorkers(ctx context.Context, e *Env, tc *Clients, t lab.Tenant) error {
	for _, w := range t.Workers {
		node := e.Lab.NodeName(t.Name, w.Name)
		if err := deviceplugin.RegisterNode(ctx, tc.Kube, e.Lab, t.Name, w, node); err != nil {
			return fail(stageHAMi, "Node "+node+" in tenant "+t.Name, "registering GPUs before HAMi starts", err)
		}
	}
	return nil
}

// workersRegistered reports whether every worker of the tenant carries its
// GPU registration, and names the first that does not.
func workersRegistered(ctx context.Context, e *Env, tc *Clients, t lab.Tenant) (bool, string, error) {
	for _, w := range t.Workers {
		reg, err := render.WorkerRegistration(e.Lab, t.Name, w.Name)
		if err != nil {
			return false, "", err
		}
		n, err := tc.Kube.CoreV1().Nodes().Get(ctx, reg.NodeName, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		if ok, cond := registrationPresent(n, reg); !ok {
			return false, "Node " + reg.NodeName + ": " + cond, nil
		}
	}
	return true, "GPUs registered on every worker", nil
}

// registrationPresent reports whether a Node carries a registration: each
// label and annotation with its value, and the counts in status capacity and
// allocatable. Other keys on the Node (HAMi's handshake, the node lock) are
// not compared.
func registrationPresent(n *corev1.Node, r *render.Registration) (bool, string) {
	var diffs []string
	for k, v := range r.Labels {
		if n.Labels[k] != v {
			diffs = append(diffs, fmt.Sprintf("label %s=%q, want %q", k, n.Labels[k], v))
		}
	}
	for k, v := range r.Annotations {
		if n.Annotations[k] != v {
			diffs = append(diffs, "annotation "+k+" differs")
		}
	}
	for _, c := range []struct {
		field     string
		have, set corev1.ResourceList
	}{{"capacity", n.Status.Capacity, r.Capacity}, {"allocatable", n.Status.Allocatable, r.Allocatable}} {
		for name, want := range c.set {
			got, ok := c.have[name]
			if !ok || got.Cmp(want) != 0 {
				diffs = append(diffs, fmt.Sprintf("status.%s %s=%s, want %s", c.field, name, got.String(), want.String()))
			}
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		return false, strings.Join(diffs, "; ")
	}
	return true, "registered"
}

// workersAdvertise is the gpus stage's allocatable gate for one tenant: every
// worker's Node carries in status.allocatable each GPU resource of
// gpus.Advertised at its value. The condition names, for each worker that
// does not, the tenant, worker, Node, resource, want and got
// (deviceplugin.AllocatableGaps), so a lab whose kubelets would reject GPU
// pods fails here rather than in the suite.
func workersAdvertise(ctx context.Context, e *Env, tc *Clients, t lab.Tenant) (bool, string, error) {
	var gaps []string
	for _, w := range t.Workers {
		node := e.Lab.NodeName(t.Name, w.Name)
		n, err := tc.Kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return false, "", fmt.Errorf("read Node %s of worker %s in tenant %s: %w", node, w.Name, t.Name, err)
		}
		if err := deviceplugin.AllocatableGaps(t.Name, w.Name, n, gpus.Advertised(e.Lab, t.Name, w)); err != nil {
			gaps = append(gaps, err.Error())
		}
	}
	if len(gaps) > 0 {
		return false, strings.Join(gaps, "; "), nil
	}
	return true, "every worker's allocatable GPU resources are the inventory's", nil
}
