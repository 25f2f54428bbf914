package suite

import (
	"context"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// Where a burst's time goes (issue 42): HAMi binds one pod at a time per
// node. Its Bind takes the node's hami.io/mutex.lock, and the device plugin
// releases it at the end of Allocate (HAMi v2.10.0 pkg/scheduler/
// scheduler.go:1047, plugin/util.go:397-405); a Bind that finds the lock
// taken fails at once (pkg/util/nodelock/nodelock.go:290) and kube-scheduler
// retries the pod after its backoff. So a burst's time on one node is the
// time the lock was held (bind to Allocate) plus the time it was free while
// pods waited (the backoff before the next Bind). TC-14 records the lock's
// changes as it sees them and reports both.

// lockEvent is a change of a node's lock as the suite saw it: owner is
// "namespace/pod", "" once released.
type lockEvent struct {
	at    time.Time
	owner string
}

// lockSplit is a burst's time on one node split by its lock.
type lockSplit struct {
	takes int             // holds seen begin
	held  []time.Duration // each hold seen begin and end, sorted
	free  time.Duration   // unlocked between the first take and end
}

// splitByLock reads the events (in the order seen) up to end — when the
// burst's last pod was seen bound: time unlocked after that waits on no
// pod. A new owner ends the previous hold (the watch may not show the
// release between them).
func splitByLock(evs []lockEvent, end time.Time) lockSplit {
	var s lockSplit
	var owner string
	var since time.Time // when the current state (held by owner, or free) began
	for _, ev := range evs {
		if ev.owner == owner {
			continue
		}
		if ev.at.After(end) {
			if owner != "" {
				s.held = append(s.held, ev.at.Sub(since))
			} else if s.takes > 0 {
				s.free += end.Sub(since)
			}
			slices.Sort(s.held)
			return s
		}
		switch {
		case owner != "":
			s.held = append(s.held, ev.at.Sub(since))
		case s.takes > 0:
			s.free += ev.at.Sub(since)
		}
		if ev.owner != "" {
			s.takes++
		}
		owner, since = ev.owner, ev.at
	}
	if owner == "" && s.takes > 0 {
		s.free += end.Sub(since)
	}
	slices.Sort(s.held)
	return s
}

// lockWatch records the changes of one node's lock until stopped.
type lockWatch struct {
	mu     sync.Mutex
	evs    []lockEvent
	broken bool // the watch ended before it was stopped
	stop   context.CancelFunc
	done   chan struct{}
}

// watchLock starts recording node's lock in the tenant c serves.
func watchLock(ctx context.Context, c kubernetes.Interface, node string) (*lockWatch, error) {
	ctx, cancel := context.WithCancel(ctx)
	w, err := c.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", node).String()})
	if err != nil {
		cancel()
		return nil, err
	}
	lw := &lockWatch{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(lw.done)
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					lw.mu.Lock()
					lw.broken = ctx.Err() == nil
					lw.mu.Unlock()
					return
				}
				if n, isNode := ev.Object.(*corev1.Node); isNode {
					lw.seen(n)
				}
			}
		}
	}()
	return lw, nil
}

func (lw *lockWatch) seen(n *corev1.Node) {
	at := time.Now()
	owner := ""
	if v, held := n.Annotations[gpus.AnnoNodeLock]; held {
		owner = v
		if l, err := gpus.ParseLock(v); err == nil && l.Pod != "" {
			owner = l.Namespace + "/" + l.Pod
		}
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.evs = append(lw.evs, lockEvent{at: at, owner: owner})
}

// result stops the watch and returns what it saw, and whether it saw all
// of it.
func (lw *lockWatch) result() ([]lockEvent, bool) {
	lw.stop()
	<-lw.done
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.evs, !lw.broken
}
