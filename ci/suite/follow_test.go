package suite

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// failingWatch is a watch that ends at once: after the given events, one
// Error event (what the API server sends for e.g. 410 Gone), then closed.
func failingWatch(events ...watch.Event) watch.Interface {
	fw := watch.NewFakeWithChanSize(len(events)+1, false)
	for _, ev := range events {
		fw.Action(ev.Type, ev.Object)
	}
	fw.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version: 1 (2)"})
	fw.Stop()
	return fw
}

// scripted is a list/watch pair whose n-th list and watch answer as the
// test says; it counts the calls.
type scripted struct {
	mu             sync.Mutex
	lists, watches int
	list           func(n int) (runtime.Object, error)
	watch          func(n int) (watch.Interface, error)
}

func (s *scripted) lw() *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			s.mu.Lock()
			s.lists++
			n := s.lists
			s.mu.Unlock()
			return s.list(n)
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			s.mu.Lock()
			s.watches++
			n := s.watches
			s.mu.Unlock()
			return s.watch(n)
		},
	}
}

func (s *scripted) counts() (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists, s.watches
}

func podList(rv string, pods ...*corev1.Pod) *corev1.PodList {
	l := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
	for _, p := range pods {
		l.Items = append(l.Items, *p)
	}
	return l
}

func boundPod(name string) *corev1.Pod {
	p := pendingPod(name)
	p.Spec.NodeName = "worker"
	return p
}

func isBound(ev watch.Event) (bool, error) {
	p, ok := ev.Object.(*corev1.Pod)
	return ok && p.Spec.NodeName != "", nil
}

// noStreaming is a client that tells the reflector it cannot stream lists,
// as the fake clientset's does.
var noStreaming = fake.NewSimpleClientset() //nolint:staticcheck

// The server ends the watch with 410 Gone: follow lists again and sees
// the change it missed (the reflector's relist replaced the loop's own).
func TestFollowListsAgainAfterGone(t *testing.T) {
	t.Parallel() // the reflector backs off before it lists again
	s := &scripted{
		list: func(n int) (runtime.Object, error) {
			if n == 1 {
				return podList("1", pendingPod("p")), nil
			}
			return podList("3", boundPod("p")), nil
		},
		watch: func(n int) (watch.Interface, error) {
			if n == 1 {
				return failingWatch(), nil
			}
			return watch.NewFake(), nil // open, silent
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := follow(ctx, s.lw(), noStreaming, &corev1.Pod{}, func(cache.Store) (bool, error) { return false, nil }, isBound)
	if err != nil {
		t.Fatalf("follow = %v, want the bound pod seen after the re-list", err)
	}
	if lists, _ := s.counts(); lists != 2 {
		t.Errorf("%d lists, want 2 (one after the 410)", lists)
	}
}

// A list or watch the server refuses (other than 410) will not heal within
// a wait: follow returns the refusal at once, not the deadline.
func TestFollowFailsAtOnceWhenRefused(t *testing.T) {
	denied := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "p", errors.New("no watch verb"))
	for _, tc := range []struct {
		name  string
		list  func(int) (runtime.Object, error)
		watch func(int) (watch.Interface, error)
	}{
		{"list refused", func(int) (runtime.Object, error) { return nil, denied },
			func(int) (watch.Interface, error) { return watch.NewFake(), nil }},
		{"watch refused", func(int) (runtime.Object, error) { return podList("1", pendingPod("p")), nil },
			func(int) (watch.Interface, error) { return nil, denied }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			s := &scripted{list: tc.list, watch: tc.watch}
			err := follow(ctx, s.lw(), noStreaming, &corev1.Pod{}, func(cache.Store) (bool, error) { return false, nil }, isBound)
			if !apierrors.IsForbidden(err) {
				t.Fatalf("follow = %v, want the Forbidden error", err)
			}
		})
	}
}

// synced sees the listed state once the watch is open; events after it
// reach handle.
func TestFollowSyncedThenEvents(t *testing.T) {
	fw := watch.NewFake()
	s := &scripted{
		list:  func(int) (runtime.Object, error) { return podList("1", pendingPod("p")), nil },
		watch: func(int) (watch.Interface, error) { return fw, nil },
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var listed *corev1.Pod
	err := follow(ctx, s.lw(), noStreaming, &corev1.Pod{}, func(store cache.Store) (bool, error) {
		if _, watches := s.counts(); watches != 1 {
			t.Errorf("synced ran with %d watches open, want 1", watches)
		}
		if obj, ok, _ := store.GetByKey("ns/p"); ok {
			listed = obj.(*corev1.Pod)
		}
		go fw.Modify(boundPod("p")) // the server's next event
		return false, nil
	}, isBound)
	if err != nil {
		t.Fatal(err)
	}
	if listed == nil || listed.Spec.NodeName != "" {
		t.Errorf("synced saw %v, want the listed pending pod", listed)
	}
}

// synced saying done ends follow without waiting for an event.
func TestFollowDoneWhenSynced(t *testing.T) {
	s := &scripted{
		list:  func(int) (runtime.Object, error) { return podList("1"), nil },
		watch: func(int) (watch.Interface, error) { return watch.NewFake(), nil },
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := follow(ctx, s.lw(), noStreaming, &corev1.Pod{}, func(store cache.Store) (bool, error) {
		return len(store.List()) == 0, nil
	}, func(watch.Event) (bool, error) { return false, nil })
	if err != nil {
		t.Fatal(err)
	}
}
