package suite

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// burstCases declares TC-14, which holds its whole worker.
var burstCases = []caseDecl{
	{
		Case: Case{ID: "TC-14", Title: "Ten GPU pods back to back all bind, with no node-lock stall",
			Asserts: "ten small GPU pods created back to back, pinned to the fewest cards of one worker that " +
				"hold them, are all bound within the burst timeout (below HAMi's 5-minute node-lock " +
				"stall); each bind latency is reported as a metric, never asserted",
			Needs: "a worker whose cards hold ten small pods at once (one card with hami.splitCount ≥ 10 and 10000 MB does)"},
		place: onCards(burstWorker, 0, ""),
		run:   func(ctx context.Context, t *caseT, s *stage) error { return tc14(ctx, t, *s.hw.Burst) },
	},
}

// TC-14: ten pods created back to back on one worker, pinned to the fewest
// of its cards that hold them. Each bind latency is a metric; only the
// burst timeout fails the case, because real HAMi throttles its API calls
// and seconds per pod in a burst are normal.
func tc14(ctx context.Context, t *caseT, pl placement) error {
	s := pl.site
	at, err := t.locate(ctx, pl)
	if err != nil {
		return err
	}
	var mems []int
	for _, d := range at.Use {
		mems = append(mems, d.Devmem)
	}
	small := smallMBOf(mems)
	ns, err := t.namespace(ctx, s.Tenant)
	if err != nil {
		return err
	}
	pods := t.client(s.Tenant).CoreV1().Pods(ns)
	// The watch is opened before the first pod is created, so every bind
	// is seen when it happens.
	list, err := pods.List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("tenant %s: list pods in %s: %w", s.Tenant, ns, err)
	}
	w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		return fmt.Errorf("tenant %s: watch pods in %s: %w", s.Tenant, ns, err)
	}
	// The worker's node lock, from before the first pod: where the burst's
	// time goes (locktimeline.go). Only reported, so a watch that cannot
	// start costs the report its split, not the case.
	lw, lerr := watchLock(ctx, t.client(s.Tenant), at.Node)
	if lerr != nil {
		t.step("node %s's %s not followed: %v", at.Node, gpus.AnnoNodeLock, lerr)
	} else {
		defer lw.result()
	}
	b := newBurst()
	for i := 1; i <= burstPods; i++ {
		p := gpuPod{name: fmt.Sprintf("tc14-%02d", i), gpus: 1, memMB: small, cores: burstCores, node: at.Node, cards: at.uuids()}
		start := time.Now()
		if _, err := t.createPod(ctx, s.Tenant, p); err != nil {
			w.Stop()
			return err
		}
		b.created(p.name, start)
	}
	t.step("created %d pods (gpu 1, %d MB, %d%% cores) back to back on %s, pinned to %s",
		burstPods, small, burstCores, at.Node, strings.Join(at.uuids(), ", "))
	if err := b.follow(ctx, t, pods, list.ResourceVersion, w); err != nil {
		return fmt.Errorf("tenant %s, namespace %s: %w", s.Tenant, ns, err)
	}
	if !b.done() {
		return t.burstStalled(ctx, s.Tenant, ns, b)
	}
	lat := b.latencies(t)
	t.step("all %d pods bound; bind latency median %s, max %s", burstPods,
		lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	if lw != nil {
		t.lockSplit(lw, at.Node, b.lastBound())
	}
	// All ten at once is the card's busiest moment: the report draws it.
	t.snapshot(ctx, s.Tenant, fmt.Sprintf("TC-14: ten pods on %s", strings.Join(at.uuids(), ", ")))
	// How often a bind lost HAMi's node lock and was retried: what the
	// lab's client rate and backoff settings trade against each other.
	if n, err := t.lockFailures(ctx, s.Tenant, ns); err == nil {
		t.metric("lock_failures", float64(n))
	}
	return t.deleteCasePods(ctx, s.Tenant, "TC-14")
}

// burst is TC-14's record of its pods: when each was created, how long
// after that it was first seen bound, and the last state seen of each.
type burst struct {
	began time.Time // the burst timeout runs from here, before the first pod
	names []string
	start map[string]time.Time
	bound map[string]time.Duration
	last  map[string]*corev1.Pod
}

func newBurst() *burst {
	return &burst{began: time.Now(), start: map[string]time.Time{}, bound: map[string]time.Duration{}, last: map[string]*corev1.Pod{}}
}

func (b *burst) created(name string, at time.Time) {
	b.names = append(b.names, name)
	b.start[name] = at
}

// seen records a pod's state; the first time one of the burst's pods has
// a node, its bind latency.
func (b *burst) seen(p *corev1.Pod) {
	b.last[p.Name] = p
	if start, mine := b.start[p.Name]; mine && p.Spec.NodeName != "" {
		if _, ok := b.bound[p.Name]; !ok {
			b.bound[p.Name] = time.Since(start)
		}
	}
}

func (b *burst) done() bool { return len(b.bound) == len(b.names) }

// lastBound is when the last of the burst's pods was seen bound.
func (b *burst) lastBound() time.Time {
	var last time.Time
	for n, d := range b.bound {
		if at := b.start[n].Add(d); at.After(last) {
			last = at
		}
	}
	return last
}

// lockSplit reports where the burst's time on node went: the node lock's
// holds and the time it was free while pods waited, as metrics and a step.
func (t *caseT) lockSplit(lw *lockWatch, node string, end time.Time) {
	evs, whole := lw.result()
	sp := splitByLock(evs, end)
	t.metric("lock_takes", float64(sp.takes))
	t.metric("lock_free_seconds", sp.free.Seconds())
	msg := fmt.Sprintf("node %s's %s: taken %d times", node, gpus.AnnoNodeLock, sp.takes)
	if n := len(sp.held); n > 0 {
		t.metric("lock_held_seconds.median", sp.held[n/2].Seconds())
		t.metric("lock_held_seconds.max", sp.held[n-1].Seconds())
		msg += fmt.Sprintf(", held median %s, max %s (bind to the end of Allocate)",
			sp.held[n/2].Round(time.Millisecond), sp.held[n-1].Round(time.Millisecond))
	}
	msg += fmt.Sprintf("; free %s while pods waited (kube-scheduler's backoff after a Bind that found it taken)",
		sp.free.Round(time.Millisecond))
	if !whole {
		msg += "; the node watch ended early, so some changes were not seen"
	}
	t.step("%s", msg)
}

// follow watches the namespace's pods from w (opened at rv, before the
// pods were created; relisting when the watch ends) until every pod is
// bound or the burst timeout passes; the end of ctx is an error, the
// timeout is not (the caller reports what was not bound).
func (b *burst) follow(ctx context.Context, t *caseT, pods typedcorev1.PodInterface, rv string, w watch.Interface) error {
	bctx, cancel := context.WithDeadline(ctx, b.began.Add(t.r.tm.Burst))
	defer cancel()
	first := true
	err := follow(bctx, t.r.relist, func(ctx context.Context) (string, bool, error) {
		if first {
			first = false
			return rv, false, nil
		}
		l, err := pods.List(ctx, metav1.ListOptions{})
		if err != nil {
			return "", false, fmt.Errorf("list pods: %w", err)
		}
		for i := range l.Items {
			b.seen(&l.Items[i])
		}
		return l.ResourceVersion, b.done(), nil
	}, func(ctx context.Context, rv string) (watch.Interface, error) {
		if w != nil {
			ww := w
			w = nil
			return ww, nil
		}
		return pods.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	}, func(ev watch.Event) (bool, error) {
		if p, ok := ev.Object.(*corev1.Pod); ok {
			b.seen(p)
		}
		return b.done(), nil
	})
	if err != nil && bctx.Err() == nil {
		return err
	}
	if !b.done() && ctx.Err() != nil {
		return fmt.Errorf("stopped waiting after %d of %d pods were bound: %w", len(b.bound), len(b.names), ctx.Err())
	}
	return nil
}

// latencies records each pod's bind latency, and the median and maximum,
// as metrics, and returns them sorted.
func (b *burst) latencies(t *caseT) []time.Duration {
	var lat []time.Duration
	for _, n := range b.names {
		t.metric("bind_seconds."+n, b.bound[n].Seconds())
		lat = append(lat, b.bound[n])
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.metric("bind_seconds.max", lat[len(lat)-1].Seconds())
	t.metric("bind_seconds.median", lat[len(lat)/2].Seconds())
	return lat
}

// burstStalled is the case's failure when the timeout passed first: how
// many were bound, and for each pod that was not, what kube-scheduler last
// said of it — not a guess: with real HAMi a stall was once the node lock,
// once "node unregistered".
func (t *caseT) burstStalled(ctx context.Context, tenant, ns string, b *burst) error {
	var waiting []string
	for _, n := range b.names {
		if _, ok := b.bound[n]; !ok {
			waiting = append(waiting, n)
		}
	}
	events, everr := t.lastFailedScheduling(ctx, tenant, ns)
	msg := fmt.Sprintf("%d of %d pods were bound within %s; not bound: %s",
		len(b.bound), len(b.names), t.r.tm.Burst, unboundByVerdict(waiting, b.last, events))
	if everr != nil {
		msg += " (events could not be read: " + everr.Error() + ")"
	}
	return errors.New(msg)
}
