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
)

// burstCases declares TC-14, which holds its whole worker.
var burstCases = []caseDecl{
	{
		Case: Case{ID: "TC-14", Title: "Ten GPU pods back to back all bind, with no node-lock stall",
			Asserts: "ten small GPU pods created back to back, pinned to the fewest cards of one worker that hold them, are all bound within the burst timeout (below HAMi's 5-minute node-lock stall); each bind latency is reported as a metric, never asserted",
			Needs:   "a worker whose cards hold ten small pods at once (one card with hami.splitCount ≥ 10 and 10000 MB does)"},
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
	cs := t.client(s.Tenant)
	bctx, cancel := context.WithTimeout(ctx, t.r.tm.Burst)
	defer cancel()
	created := map[string]time.Time{}
	var names []string
	bound := map[string]time.Duration{}
	last := map[string]*corev1.Pod{}
	seen := func(p *corev1.Pod) {
		last[p.Name] = p
		if start, mine := created[p.Name]; mine && p.Spec.NodeName != "" {
			if _, ok := bound[p.Name]; !ok {
				bound[p.Name] = time.Since(start)
			}
		}
	}
	pods := cs.CoreV1().Pods(ns)
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
	for i := 1; i <= burstPods; i++ {
		p := gpuPod{name: fmt.Sprintf("tc14-%02d", i), gpus: 1, memMB: small, cores: burstCores, node: at.Node, cards: at.uuids()}
		start := time.Now()
		if _, err := t.createPod(ctx, s.Tenant, p); err != nil {
			w.Stop()
			return err
		}
		created[p.name] = start
		names = append(names, p.name)
	}
	t.step("created %d pods (gpu 1, %d MB, %d%% cores) back to back on %s, pinned to %s", burstPods, small, burstCores, at.Node, strings.Join(at.uuids(), ", "))
	first := true
	err = follow(bctx, t.r.relist, func(ctx context.Context) (string, bool, error) {
		if first {
			first = false
			return list.ResourceVersion, false, nil
		}
		l, err := pods.List(ctx, metav1.ListOptions{})
		if err != nil {
			return "", false, fmt.Errorf("tenant %s: list pods in %s: %w", s.Tenant, ns, err)
		}
		for i := range l.Items {
			seen(&l.Items[i])
		}
		return l.ResourceVersion, len(bound) == burstPods, nil
	}, func(ctx context.Context, rv string) (watch.Interface, error) {
		if w != nil {
			ww := w
			w = nil
			return ww, nil
		}
		return pods.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	}, func(ev watch.Event) (bool, error) {
		if p, ok := ev.Object.(*corev1.Pod); ok {
			seen(p)
		}
		return len(bound) == burstPods, nil
	})
	if err != nil && bctx.Err() == nil {
		return err
	}
	if len(bound) < burstPods && ctx.Err() != nil {
		return fmt.Errorf("stopped waiting after %d of %d pods were bound: %w", len(bound), burstPods, ctx.Err())
	}
	if len(bound) < burstPods {
		var waiting []string
		for _, n := range names {
			if _, ok := bound[n]; !ok {
				waiting = append(waiting, n)
			}
		}
		// What kube-scheduler last said about each pod, not a guess: with
		// real HAMi a stall was once the node lock, once "node unregistered".
		events, everr := t.lastFailedScheduling(ctx, s.Tenant, ns)
		msg := fmt.Sprintf("%d of %d pods were bound within %s; not bound: %s",
			len(bound), burstPods, t.r.tm.Burst, unboundByVerdict(waiting, last, events))
		if everr != nil {
			msg += " (events could not be read: " + everr.Error() + ")"
		}
		return errors.New(msg)
	}
	var lat []time.Duration
	for _, n := range names {
		t.metric("bind_seconds."+n, bound[n].Seconds())
		lat = append(lat, bound[n])
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.metric("bind_seconds.max", lat[len(lat)-1].Seconds())
	t.metric("bind_seconds.median", lat[len(lat)/2].Seconds())
	t.step("all %d pods bound; bind latency median %s, max %s", burstPods, lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	// All ten at once is the card's busiest moment: the report draws it.
	t.snapshot(ctx, s.Tenant, fmt.Sprintf("TC-14: ten pods on %s", strings.Join(at.uuids(), ", ")))
	// How often a bind lost HAMi's node lock and was retried: what the
	// lab's client rate and backoff settings trade against each other.
	if n, err := t.lockFailures(ctx, s.Tenant, ns); err == nil {
		t.metric("lock_failures", float64(n))
	}
	return t.deleteCasePods(ctx, s.Tenant, "TC-14")
}
