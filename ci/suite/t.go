package suite

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// Labels on every object the suite creates.
const (
	LabelSuite  = "gpu-lab.dev/suite"
	labelRun    = "gpu-lab.dev/run"
	labelCase   = "gpu-lab.dev/case"
	labelTenant = "gpu-lab.dev/tenant"
	suiteValue  = "conformance"
)

// caseT is a running case's handle: clients, namespaces, steps and metrics.
type caseT struct {
	r      *runner
	res    *results.Case
	lane   *lane
	caseID string

	mu         sync.Mutex
	namespaces map[string]string // tenant → this case's namespace
	refs       []podRef          // other cases' pods this case looked at
}

type podRef struct{ tenant, namespace, name string }

func (p podRef) String() string { return p.namespace + "/" + p.name }

// lane is the namespaces a task created, deleted when the task ends.
type lane struct {
	mu         sync.Mutex
	namespaces []laneNamespace
}

// laneNamespace is a namespace a case created in a tenant.
type laneNamespace struct{ tenant, namespace, caseID string }

// step records an action or a passed assertion, in order.
func (t *caseT) step(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	t.mu.Lock()
	t.res.Steps = append(t.res.Steps, results.Step{At: time.Now(), Message: msg})
	t.mu.Unlock()
	t.r.log.Debug("step", "case", t.caseID, "msg", msg)
}

// metric records a measured number (seconds for durations).
func (t *caseT) metric(name string, v float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.res.Metrics == nil {
		t.res.Metrics = map[string]float64{}
	}
	t.res.Metrics[name] = v
}

// keep records a file the case keeps as evidence whether it passes or
// fails, beside the diagnostics a failure collects, and returns where the
// reports put it: results.Case.Diagnostics, which ci/report writes as
// diagnostics/<case ID>/<name> (a test holds the path to report's).
func (t *caseT) keep(name, content string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.res.Diagnostics == nil {
		t.res.Diagnostics = map[string]string{}
	}
	t.res.Diagnostics[name] = content
	return "diagnostics/" + t.caseID + "/" + name
}

// client is the tenant's clientset.
func (t *caseT) client(tenant string) kubernetes.Interface { return t.r.clients[tenant] }

// timeouts are the run's timeouts.
func (t *caseT) timeouts() Timeouts { return t.r.tm }

func (t *caseT) reference(p podRef) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refs = append(t.refs, p)
}

func (t *caseT) labels(tenant string) map[string]string {
	return map[string]string{LabelSuite: suiteValue, labelRun: t.r.runID, labelCase: t.caseID, labelTenant: tenant}
}

// namespace returns this case's namespace in the tenant, creating it (and
// its default ServiceAccount, which pod admission requires) on first use.
// The scenario deletes it when it ends, so later cases can still read it.
func (t *caseT) namespace(ctx context.Context, tenant string) (string, error) {
	t.mu.Lock()
	if ns, ok := t.namespaces[tenant]; ok {
		t.mu.Unlock()
		return ns, nil
	}
	t.mu.Unlock()
	name := strings.ToLower(t.caseID) + "-" + t.r.runID
	cs := t.client(tenant)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: t.labels(tenant)}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("tenant %s: create namespace %s: %w", tenant, name, err)
	}
	t.lane.mu.Lock()
	t.lane.namespaces = append(t.lane.namespaces, laneNamespace{tenant: tenant, namespace: name, caseID: t.caseID})
	t.lane.mu.Unlock()
	// Creating the ServiceAccount ourselves is faster than waiting for the
	// controller-manager; whoever is second gets AlreadyExists.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: name}}
	if _, err := cs.CoreV1().ServiceAccounts(name).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("tenant %s: create ServiceAccount %s/default: %w", tenant, name, err)
	}
	t.mu.Lock()
	if t.namespaces == nil {
		t.namespaces = map[string]string{}
	}
	t.namespaces[tenant] = name
	t.mu.Unlock()
	t.step("namespace %s created in %s", name, tenant)
	return name, nil
}

// leftover is a namespace cleanup could not delete, and why.
type leftover struct {
	laneNamespace
	err error
}

func (l leftover) String() string {
	return fmt.Sprintf("namespace %s in tenant %s was not deleted: %s", l.namespace, l.tenant, oneLine(l.err.Error()))
}

// cleanup deletes a task's namespaces: pods first with no grace period (so
// GPU capacity is released at once), then the namespaces. It returns, and
// logs, every namespace it could not delete. It ends with ctx, and sooner
// for a tenant Config.Health names as broken: each of its namespaces gets
// Timeouts.Broken, and once a call to it failed, its other namespaces are
// not tried.
func (r *runner) cleanup(ctx context.Context, l *lane) []leftover {
	l.mu.Lock()
	nss := append([]laneNamespace(nil), l.namespaces...)
	l.mu.Unlock()
	var left []leftover
	given := map[string]error{} // tenants given up on, and why
	for _, ns := range nss {
		if why := given[ns.tenant]; why != nil {
			left = append(left, leftover{ns, why})
			continue
		}
		// fail records a failed call; a broken component, named by
		// Health, makes it the reason and ends this tenant's cleanup.
		fail := func(what string, err error) {
			if down := r.health([]string{ns.tenant}); down != nil {
				err = fmt.Errorf("%s: %w", down.Error(), err)
				given[ns.tenant] = err
			}
			left = append(left, leftover{ns, fmt.Errorf("%s: %w", what, err)})
		}
		nctx, cancel := ctx, context.CancelFunc(func() {})
		if r.health([]string{ns.tenant}) != nil {
			nctx, cancel = context.WithTimeout(ctx, r.tm.Broken)
		}
		r.deleteNamespace(nctx, ns, fail)
		cancel()
	}
	for _, lo := range left {
		r.log.Warn("cleanup: "+lo.String(), "case", lo.caseID)
	}
	return left
}

// deleteNamespace deletes a namespace's pods without grace, waits until
// they are gone, then deletes the namespace; fail gets a failed call.
func (r *runner) deleteNamespace(ctx context.Context, ns laneNamespace, fail func(string, error)) {
	zero := int64(0)
	cs := r.clients[ns.tenant]
	if err := cs.CoreV1().Pods(ns.namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero},
		metav1.ListOptions{}); err != nil && !apierrors.IsNotFound(err) {
		fail("delete its pods", err)
		return
	}
	// Pods deleted without grace are gone at once; waiting for it
	// here lets the next scenario on these cards start on empty ones.
	if err := r.waitNoPods(ctx, cs, ns.tenant, ns.namespace); err != nil {
		r.log.Warn("cleanup: pods not gone", "tenant", ns.tenant, "namespace", ns.namespace, "err", err)
	}
	bg := metav1.DeletePropagationBackground
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns.namespace, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil &&
		!apierrors.IsNotFound(err) {
		fail("delete", err)
	}
}

// waitNoPods polls until the namespace has no pods, ctx ends, or the
// tenant stops answering while Config.Health names a broken component.
func (r *runner) waitNoPods(ctx context.Context, cs kubernetes.Interface, tenant, ns string) error {
	return wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			if down := r.health([]string{tenant}); down != nil {
				return false, fmt.Errorf("%s: %w", down.Error(), err)
			}
			return false, nil //nolint:nilerr // transient: try again until ctx ends
		}
		return len(l.Items) == 0, nil
	})
}
