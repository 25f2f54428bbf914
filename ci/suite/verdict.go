package suite

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/gpu-lab/gpu-lab/ci/suite/assert"
)

// reasonFailedScheduling is the event reason kube-scheduler records for
// every failed attempt, filter rejection and bind error alike:
// `Eventf(pod, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)`
// in pkg/scheduler/schedule_one.go (Kubernetes v1.36.3).
const reasonFailedScheduling = "FailedScheduling"

// verdictLookupTimeout bounds reading the events after a wait timed out,
// so a dead API server cannot turn one timeout into two.
const verdictLookupTimeout = 10 * time.Second

// lastFailedScheduling returns, per pod name, the newest FailedScheduling
// event in a namespace. A failed lookup returns what it has and the error,
// which the caller reports next to the pods, never instead of them.
func (t *caseT) lastFailedScheduling(ctx context.Context, tenant, namespace string) (map[string]*corev1.Event, error) {
	ctx, cancel := context.WithTimeout(ctx, verdictLookupTimeout)
	defer cancel()
	// "reason" is a selectable field of core/v1 Events (ToSelectableFields
	// in pkg/registry/core/event/strategy.go, Kubernetes v1.36.3); the
	// filter below repeats it for clients that ignore field selectors.
	l, err := t.client(tenant).CoreV1().Events(namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("reason", reasonFailedScheduling).String(),
	})
	if err != nil {
		return nil, fmt.Errorf("tenant %s: list events in %s: %w", tenant, namespace, err)
	}
	return newestFailedScheduling(l.Items), nil
}

func newestFailedScheduling(evs []corev1.Event) map[string]*corev1.Event {
	out := map[string]*corev1.Event{}
	for i := range evs {
		e := &evs[i]
		if e.Reason != reasonFailedScheduling || e.InvolvedObject.Kind != "Pod" {
			continue
		}
		if cur, ok := out[e.InvolvedObject.Name]; !ok || lastSeen(e).After(lastSeen(cur)) {
			out[e.InvolvedObject.Name] = e
		}
	}
	return out
}

// lastSeen is when the event last happened as far as the API shows:
// events.k8s.io events (kube-scheduler's) keep repeats in a series.
func lastSeen(e *corev1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// schedulerVerdict is kube-scheduler's last word on a pod that is not
// bound: its PodScheduled=False condition and its newest FailedScheduling
// event (when it says something else), then the obstacle they name, if
// they name one the suite knows. It names nothing it did not see.
func schedulerVerdict(p *corev1.Pod, ev *corev1.Event) string {
	var parts []string
	var said []string
	if c := scheduled(p); c != nil && c.Status == corev1.ConditionFalse {
		parts = append(parts, fmt.Sprintf("PodScheduled=False (%s): %s", c.Reason, c.Message))
		said = append(said, c.Message)
	}
	if ev != nil && (len(said) == 0 || ev.Message != said[0]) {
		count := ""
		if n := eventCount(ev); n > 1 {
			count = fmt.Sprintf(" (x%d)", n)
		}
		parts = append(parts, fmt.Sprintf("last FailedScheduling event%s: %s", count, ev.Message))
		said = append(said, ev.Message)
	}
	if len(parts) == 0 {
		return "no scheduler verdict seen (no PodScheduled=False condition, no FailedScheduling event)"
	}
	v := "scheduler's last verdict: " + strings.Join(parts, "; ")
	for _, msg := range said {
		if cause := assert.Cause(msg); cause != "" {
			return v + " — " + cause
		}
	}
	return v
}

func eventCount(e *corev1.Event) int32 {
	if e.Series != nil && e.Series.Count > e.Count {
		return e.Series.Count
	}
	return e.Count
}

// podAtTimeout describes a pod a wait gave up on: where it is and, when it
// is not bound, the scheduler's last verdict.
func podAtTimeout(p *corev1.Pod, ev *corev1.Event) string {
	if p == nil {
		return "the pod was never seen"
	}
	s := "phase " + string(p.Status.Phase)
	if p.Status.Phase == "" {
		s = "no phase yet"
	}
	if p.Spec.NodeName != "" {
		return s + ", bound to " + p.Spec.NodeName
	}
	return s + ", " + schedulerVerdict(p, ev)
}

// unboundByVerdict groups the pods not bound by what the scheduler last
// said about them, so ten pods stuck for one reason read as one line.
func unboundByVerdict(names []string, last map[string]*corev1.Pod, events map[string]*corev1.Event) string {
	var order []string
	group := map[string][]string{}
	for _, n := range names {
		d := podAtTimeout(last[n], events[n])
		if _, ok := group[d]; !ok {
			order = append(order, d)
		}
		group[d] = append(group[d], n)
	}
	sort.SliceStable(order, func(i, j int) bool { return len(group[order[i]]) > len(group[order[j]]) })
	var out []string
	for _, d := range order {
		out = append(out, strings.Join(group[d], ", ")+": "+d)
	}
	return strings.Join(out, "; ")
}

// lockFailures counts the binds kube-scheduler reported failing on HAMi's
// node lock in a namespace (FailedScheduling events whose message is one of
// HAMi's two lock-contention errors), repeats included: kube-scheduler
// writes events.k8s.io events, whose repeats are a series.
func (t *caseT) lockFailures(ctx context.Context, tenant, namespace string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, verdictLookupTimeout)
	defer cancel()
	l, err := t.client(tenant).CoreV1().Events(namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("reason", reasonFailedScheduling).String(),
	})
	if err != nil {
		return 0, fmt.Errorf("tenant %s: list events in %s: %w", tenant, namespace, err)
	}
	return countLockFailures(l.Items), nil
}

func countLockFailures(evs []corev1.Event) int {
	n := 0
	for _, e := range evs {
		if e.Reason != reasonFailedScheduling || !strings.Contains(e.Message, assert.NodeLockContention) {
			continue
		}
		c := max(int(e.Count), 1)
		if e.Series != nil {
			c = max(c, int(e.Series.Count))
		}
		n += c
	}
	return n
}
