package suite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// failingWatch is a watch that ends at once: after the given events, one
// Error event (what the API server sends for e.g. 410 Gone), then closed.
func failingWatch(events ...watch.Event) watch.Interface {
	fw := watch.NewFakeWithChanSize(len(events)+1, false)
	for _, ev := range events {
		fw.Action(ev.Type, ev.Object)
	}
	fw.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired,
		Message: "too old resource version: 1 (2)"})
	fw.Stop()
	return fw
}

// recordSleeps is a relistPolicy whose sleep records each delay and stops
// follow (by returning an error) after n of them.
func recordSleeps(initial, maxDelay time.Duration, n int, got *[]time.Duration) relistPolicy {
	return relistPolicy{Initial: initial, Max: maxDelay, sleep: func(_ context.Context, d time.Duration) error {
		*got = append(*got, d)
		if len(*got) == n {
			return errStopped
		}
		return nil
	}}
}

var errStopped = errors.New("stopped by the test")

func TestFollowBacksOffWhenWatchesFail(t *testing.T) {
	sec := time.Second
	tests := []struct {
		name      string
		watchFrom func(n int) (watch.Interface, error)
		want      []time.Duration
	}{
		{
			name:      "every watch errors at once: doubling, capped",
			watchFrom: func(int) (watch.Interface, error) { return failingWatch(), nil },
			want:      []time.Duration{1 * sec, 2 * sec, 4 * sec, 8 * sec, 8 * sec, 8 * sec},
		},
		{
			name: "opening the watch answers 410 Gone: re-list with the same backoff",
			watchFrom: func(int) (watch.Interface, error) {
				return nil, apierrors.NewResourceExpired("too old resource version: 1 (2)")
			},
			want: []time.Duration{1 * sec, 2 * sec, 4 * sec, 8 * sec, 8 * sec, 8 * sec},
		},
		{
			name: "a watch that delivered an event resets the backoff",
			watchFrom: func(n int) (watch.Interface, error) {
				if n == 3 {
					return failingWatch(watch.Event{Type: watch.Modified, Object: pendingPod("p")}), nil
				}
				return failingWatch(), nil
			},
			want: []time.Duration{1 * sec, 2 * sec, 1 * sec, 2 * sec, 4 * sec, 8 * sec},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []time.Duration
			lists, watches := 0, 0
			err := follow(context.Background(), recordSleeps(sec, 8*sec, len(tc.want), &got),
				func(context.Context) (string, bool, error) { lists++; return fmt.Sprint(lists), false, nil },
				func(context.Context, string) (watch.Interface, error) { watches++; return tc.watchFrom(watches) },
				func(watch.Event) (bool, error) { return false, nil })
			if !errors.Is(err, errStopped) {
				t.Fatalf("follow = %v, want it stopped by the test's sleep", err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("delays before re-lists = %v, want %v", got, tc.want)
			}
			// Every re-list came after a delay: lists = delays + the first.
			if lists != len(got) {
				t.Errorf("%d lists for %d delays, want one list per delay before the stop", lists, len(got))
			}
		})
	}
}

func TestFollowFailsOnOtherWatchErrors(t *testing.T) {
	denied := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "p", errors.New("no watch verb"))
	var got []time.Duration
	err := follow(context.Background(), recordSleeps(time.Second, time.Second, 1, &got),
		func(context.Context) (string, bool, error) { return "1", false, nil },
		func(context.Context, string) (watch.Interface, error) { return nil, denied },
		func(watch.Event) (bool, error) { return false, nil })
	if !apierrors.IsForbidden(err) || len(got) != 0 {
		t.Fatalf("follow = %v after delays %v, want the Forbidden error at once", err, got)
	}
}

func TestFollowDoneOnEvent(t *testing.T) {
	fw := watch.NewFakeWithChanSize(1, false)
	fw.Modify(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}})
	err := follow(context.Background(), relistPolicy{sleep: func(context.Context, time.Duration) error {
		t.Error("slept although the watch delivered what was awaited")
		return nil
	}},
		func(context.Context) (string, bool, error) { return "1", false, nil },
		func(context.Context, string) (watch.Interface, error) { return fw, nil },
		func(ev watch.Event) (bool, error) { return ev.Type == watch.Modified, nil })
	if err != nil {
		t.Fatal(err)
	}
}

// A deadline that passed before the events were read does not lose the
// events that had already arrived: each is handled, then the deadline ends
// the wait.
func TestDrainHandsOverQueuedEventsAfterTheDeadline(t *testing.T) {
	fw := watch.NewFakeWithChanSize(3, false)
	for _, n := range []string{"a", "b", "c"} {
		fw.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var got []string
	_, done, err := drain(ctx, fw, func(ev watch.Event) (bool, error) {
		got = append(got, ev.Object.(*corev1.Pod).Name)
		return false, nil
	})
	if !done || !errors.Is(err, context.Canceled) || strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("drain = done %v, %v, handled %v; want every queued event handled, then the deadline", done, err, got)
	}
}

func TestRelistPolicyDefaults(t *testing.T) {
	p := relistPolicy{}.withDefaults()
	if p.Initial <= 0 || p.Max < p.Initial || p.sleep == nil {
		t.Fatalf("defaults = %+v", p)
	}
	// The cap is reached and held.
	d := p.Initial
	for range 64 {
		d = p.grow(d)
	}
	if d != p.Max {
		t.Errorf("after many failures the delay is %s, want the cap %s", d, p.Max)
	}
}

// The wait sees the listed state first, then each later change once, in
// order — never a state later than the list before the list's own (what
// an informer store read after the sync shows: see follow's comment).
func TestPodEventsSeesTheListThenEachChange(t *testing.T) {
	r, fakes := fakeRunner(map[string][]runtime.Object{"tenant-a": {pendingPod("p")}})
	bound := pendingPod("p")
	bound.Spec.NodeName = "worker"
	later(fakes["tenant-a"], bound) // right after the watch opened
	var got []string
	err := newT(r).podEvents(context.Background(), podRef{"tenant-a", "ns", "p"}, func(typ watch.EventType, p *corev1.Pod) (bool, error) {
		got = append(got, fmt.Sprintf("%s %q", typ, p.Spec.NodeName))
		return p.Spec.NodeName != "", nil
	})
	if want := `ADDED "", MODIFIED "worker"`; err != nil || strings.Join(got, ", ") != want {
		t.Fatalf("podEvents saw %s (%v), want %s", strings.Join(got, ", "), err, want)
	}
}
