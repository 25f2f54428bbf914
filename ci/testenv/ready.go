package testenv

import (
	"context"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
)

// readyPoll is how often a start step asks a component whether it is ready.
const readyPoll = 100 * time.Millisecond

// readySteps are the checks after which the tenant can run the suite:
// scheduler and controller-manager healthy, the konnectivity agent
// connected, every worker Ready, untainted and with GPU capacity, HAMi
// listing every card, the default ServiceAccount present, and a dry-run GPU
// pod mutated by HAMi's webhook through the tunnel. Each runs as soon as
// what it checks has started, next to the others.
func (t *tenant) readySteps() []step {
	checks := []struct {
		what  string
		after []string
		check func(context.Context) (bool, error)
		// timeout bounds this check alone (0: only the start's deadline);
		// a check with one caps each of its attempts itself.
		timeout time.Duration
	}{
		{"kube-scheduler /healthz", []string{"kube-scheduler"}, func(ctx context.Context) (bool, error) { return healthz(ctx, t.schedPort) }, 0},
		{"kube-controller-manager /healthz", []string{"kube-controller-manager"},
			func(ctx context.Context) (bool, error) { return healthz(ctx, t.kcmPort) }, 0},
		{"konnectivity agent connected (server /readyz)", []string{"konnectivity agent"}, t.konnectivityReady, 0},
		{"workers Ready with GPU capacity", []string{"workers", "KWOK", "kube-controller-manager"}, t.workersReady, 0},
		// The gate the real lab's gpus stage uses: until HAMi has registered a
		// card, Filter answers "node unregistered" and kube-scheduler parks the
		// pod for minutes (HAMI-FACTS.md §5.2).
		{"HAMi sees every card (its /metrics)", []string{"HAMi scheduler", "workers"}, t.hamiSeesCards, t.env.registrationTimeout},
		{"ServiceAccount default/default", []string{"kube-controller-manager"}, func(ctx context.Context) (bool, error) {
			_, err := t.client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
			return err == nil, err
		}, 0},
		{"webhook mutates a dry-run GPU pod through konnectivity", []string{"webhook registration", "HAMi scheduler", "konnectivity agent"},
			t.webhookWorks, 0},
	}
	steps := make([]step, len(checks))
	for i, c := range checks {
		steps[i] = step{name: "ready: " + c.what, after: c.after, fn: func(ctx context.Context) error {
			// The processes started by now include every one this check
			// comes after.
			if c.timeout > 0 {
				return waitWithin(ctx, c.timeout, c.what, readyPoll, t.processes(), c.check)
			}
			return waitFor(ctx, c.what, readyPoll, t.processes(), c.check)
		}}
	}
	return steps
}

// waitWithin is waitFor with a timeout that ends the asking, not an attempt
// begun before it (check caps its own attempts): the error then reports
// what the component last answered, however slowly a loaded machine let it
// answer, rather than an attempt cut short.
func waitWithin(ctx context.Context, timeout time.Duration, what string, interval time.Duration, procs []*process,
	check func(context.Context) (bool, error)) error {
	start := ctx
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return waitFor(wctx, what, interval, procs, func(context.Context) (bool, error) { return check(start) })
}

func (t *tenant) konnectivityReady(ctx context.Context) (bool, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/readyz", t.konnHealthPort), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, nil
}

func (t *tenant) workersReady(ctx context.Context) (bool, error) {
	for _, w := range t.spec.Workers {
		name := nodeName(t.name(), w.Name)
		n, err := t.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if !nodeReady(n) {
			return false, fmt.Errorf("node %s is not Ready yet", name)
		}
		for _, taint := range n.Spec.Taints {
			if taint.Effect == corev1.TaintEffectNoSchedule || taint.Effect == corev1.TaintEffectNoExecute {
				return false, fmt.Errorf("node %s still has taint %s", name, taint.Key)
			}
		}
		// The real lab's gate (stage gpus): every GPU resource at the
		// inventory's value.
		if err := deviceplugin.AllocatableGaps(t.name(), w.Name, n, gpus.Advertised(t.env.lab, t.name(), w)); err != nil {
			return false, err
		}
	}
	return true, nil
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// webhookWorks creates a GPU pod with dryRun=All: admission webhooks with
// sideEffects None are called for dry runs, so a pod coming back with
// schedulerName hami-scheduler shows the whole path (API server → socket →
// konnectivity server → agent → double) works, without leaving an object.
func (t *tenant) webhookWorks(ctx context.Context) (bool, error) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "testenv-probe-", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "probe", Image: "busybox",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
				gpus.ResourceGPU:    resource.MustParse("1"),
				gpus.ResourceGPUMem: resource.MustParse("1"),
			}},
		}}},
	}
	got, err := t.client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		return false, err
	}
	if got.Spec.SchedulerName != gpus.SchedulerName {
		return false, fmt.Errorf("dry-run GPU pod came back with schedulerName %q (webhook not called yet)", got.Spec.SchedulerName)
	}
	return true, nil
}
