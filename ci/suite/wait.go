package suite

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/gpu-lab/gpu-lab/ci/suite/assert"
)

// errStop ends a watch early with a verdict of its own.
type verdictError struct{ msg string }

func (e *verdictError) Error() string { return e.msg }

// podEvents lists the pod, then follows it with a watch from the list's
// resource version; when the server ends the watch it lists and watches
// again. f sees each listed state (nil when the pod does not exist) and
// every event; it returns done or an error.
func (t *caseT) podEvents(ctx context.Context, ref podRef, f func(watch.EventType, *corev1.Pod) (bool, error)) error {
	cs := t.client(ref.tenant)
	fs := fields.OneTermEqualSelector("metadata.name", ref.name).String()
	pods := cs.CoreV1().Pods(ref.namespace)
	return follow(ctx, t.r.relist, func(ctx context.Context) (string, bool, error) {
		list, err := pods.List(ctx, metav1.ListOptions{FieldSelector: fs})
		if err != nil {
			return "", false, fmt.Errorf("tenant %s: list pod %s: %w", ref.tenant, ref, err)
		}
		var cur *corev1.Pod
		for i := range list.Items {
			if list.Items[i].Name == ref.name {
				cur = &list.Items[i]
			}
		}
		done, err := f(watch.Added, cur)
		return list.ResourceVersion, done, err
	}, func(ctx context.Context, rv string) (watch.Interface, error) {
		return pods.Watch(ctx, metav1.ListOptions{FieldSelector: fs, ResourceVersion: rv})
	}, func(ev watch.Event) (bool, error) {
		p, isPod := ev.Object.(*corev1.Pod)
		if !isPod || p.Name != ref.name {
			return false, nil
		}
		return f(ev.Type, p)
	})
}

// watchPod waits until cond says done. It fails at once when cond returns
// an error, and at the timeout with the pod's last known scheduling state.
func (t *caseT) watchPod(parent context.Context, ref podRef, timeout time.Duration, what string,
	cond func(*corev1.Pod) (bool, error)) (*corev1.Pod, error) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	var last *corev1.Pod
	err := t.podEvents(ctx, ref, func(typ watch.EventType, p *corev1.Pod) (bool, error) {
		if p == nil {
			return false, nil
		}
		if typ == watch.Deleted {
			return false, fmt.Errorf("pod %s was deleted while waiting for it to be %s", ref, what)
		}
		last = p
		return cond(p)
	})
	if err == nil {
		return last, nil
	}
	var ve *verdictError
	if errors.As(err, &ve) {
		return last, ve
	}
	if parent.Err() != nil {
		return last, fmt.Errorf("stopped waiting for pod %s to be %s (%s): %w", ref, what, describePod(last), parent.Err())
	}
	if ctx.Err() != nil {
		return last, fmt.Errorf("pod %s not %s within %s (%s)", ref, what, timeout, t.atTimeout(parent, ref, last))
	}
	return last, err
}

// atTimeout describes a pod a wait gave up on, with kube-scheduler's last
// verdict when it is not bound.
func (t *caseT) atTimeout(ctx context.Context, ref podRef, p *corev1.Pod) string {
	if p == nil || p.Spec.NodeName != "" {
		return podAtTimeout(p, nil)
	}
	evs, err := t.lastFailedScheduling(ctx, ref.tenant, ref.namespace)
	s := podAtTimeout(p, evs[ref.name])
	if err != nil {
		s += " (its events could not be read: " + err.Error() + ")"
	}
	return s
}

// scheduled returns the PodScheduled condition, or nil.
func scheduled(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// unschedulable is kube-scheduler's "no node fits" verdict, if given.
func unschedulable(p *corev1.Pod) (string, bool) {
	if c := scheduled(p); c != nil && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
		return c.Message, true
	}
	return "", false
}

func describePod(p *corev1.Pod) string {
	if p == nil {
		return "the pod was never seen"
	}
	s := "phase " + string(p.Status.Phase)
	if p.Spec.NodeName != "" {
		s += ", bound to " + p.Spec.NodeName
	}
	if c := scheduled(p); c != nil {
		s += fmt.Sprintf(", PodScheduled=%s", c.Status)
		if c.Reason != "" {
			s += " (" + c.Reason + ")"
		}
		if c.Message != "" {
			s += ": " + c.Message
		}
	} else if p.Spec.NodeName == "" {
		s += ", no scheduler verdict yet"
	}
	return s
}

// waitBound waits until the pod is bound (and Running when running is
// set). kube-scheduler declaring it unschedulable fails at once.
func (t *caseT) waitBound(ctx context.Context, ref podRef, running bool) (*corev1.Pod, error) {
	what := "bound"
	if running {
		what = "bound and Running"
	}
	return t.watchPod(ctx, ref, t.r.tm.Bind, what, func(p *corev1.Pod) (bool, error) {
		if p.Spec.NodeName == "" {
			if msg, ok := unschedulable(p); ok {
				v := fmt.Sprintf("pod %s was declared unschedulable, want it %s: %s", ref, what, msg)
				if cause := assert.Cause(msg); cause != "" {
					v += " — " + cause
				}
				return false, &verdictError{v}
			}
			return false, nil
		}
		return !running || p.Status.Phase == corev1.PodRunning, nil
	})
}

// waitVerdict waits for kube-scheduler's unschedulable verdict and returns
// its message. The pod being bound fails at once: it did not stay Pending.
func (t *caseT) waitVerdict(ctx context.Context, ref podRef) (string, error) {
	var msg string
	_, err := t.watchPod(ctx, ref, t.r.tm.Verdict, "declared unschedulable by kube-scheduler", func(p *corev1.Pod) (bool, error) {
		if p.Spec.NodeName != "" {
			return false, &verdictError{fmt.Sprintf("pod %s was bound to %s, want it to stay Pending (%s)",
				ref, p.Spec.NodeName, p.Annotations["hami.io/vgpu-devices-allocated"])}
		}
		m, ok := unschedulable(p)
		msg = m
		return ok, nil
	})
	return msg, err
}

// waitBoundOrVerdict waits for whichever comes first: bound, or declared
// unschedulable (returned as the message, pod nil).
func (t *caseT) waitBoundOrVerdict(ctx context.Context, ref podRef) (*corev1.Pod, string, error) {
	var msg string
	p, err := t.watchPod(ctx, ref, t.r.tm.Bind, "bound or declared unschedulable", func(p *corev1.Pod) (bool, error) {
		if p.Spec.NodeName != "" {
			return true, nil
		}
		m, ok := unschedulable(p)
		msg = m
		return ok, nil
	})
	if err != nil {
		return nil, "", err
	}
	if p.Spec.NodeName == "" {
		return nil, msg, nil
	}
	return p, "", nil
}

// waitGone waits until the pod no longer exists.
func (t *caseT) waitGone(ctx context.Context, ref podRef) error {
	ctx, cancel := context.WithTimeout(ctx, t.r.tm.Delete)
	defer cancel()
	err := t.podEvents(ctx, ref, func(typ watch.EventType, p *corev1.Pod) (bool, error) {
		return p == nil || typ == watch.Deleted, nil
	})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("pod %s still exists %s after its deletion", ref, t.r.tm.Delete)
	}
	return err
}
