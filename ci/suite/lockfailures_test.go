package suite

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Lock failures are counted from kube-scheduler's FailedScheduling events
// carrying either of HAMi's lock errors (texts from HAMI-FACTS.md §2),
// repeats included; other verdicts do not count.
func TestCountLockFailures(t *testing.T) {
	ev := func(reason, msg string, count int32, series int32) corev1.Event {
		e := corev1.Event{Reason: reason, Message: msg, Count: count}
		if series > 0 {
			e.Series = &corev1.EventSeries{Count: series}
		}
		return e
	}
	for _, tc := range []struct {
		name string
		evs  []corev1.Event
		want int
	}{
		{"none", nil, 0},
		{"one held-lock failure",
			[]corev1.Event{ev("FailedScheduling", "node worker-a has been locked within 5m0s: node lock contention", 0, 0)}, 1},
		{"burst overlap, repeated in a series", []corev1.Event{ev("FailedScheduling", "node worker-a is locked: node lock contention", 1, 4)}, 4},
		{"filter rejections do not count", []corev1.Event{
			ev("FailedScheduling",
				"0/2 nodes are available: 1 1/1 CardInsufficientCore, 1 node(s) didn't match Pod's node affinity/selector.", 1, 0),
			ev("FailedScheduling", "0/1 nodes are available: 1 node unregistered. no new claims to deallocate", 1, 0),
		}, 0},
		{"other reasons do not count", []corev1.Event{ev("BindingFailed", "node worker-a is locked: node lock contention", 3, 0)}, 0},
		{"summed", []corev1.Event{
			ev("FailedScheduling", "node worker-a is locked: node lock contention", 2, 0),
			ev("FailedScheduling", "node worker-a has been locked within 5m0s: node lock contention", 1, 3),
		}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := countLockFailures(tc.evs); got != tc.want {
				t.Errorf("countLockFailures = %d, want %d", got, tc.want)
			}
		})
	}
}
