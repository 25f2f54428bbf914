package suite

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
)

// relistPolicy spaces the re-lists that follow a watch which failed or
// ended: the first after Initial, each next one twice as late, at most Max
// apart. A watch that delivered an event resets it, so a healthy server
// ending a long watch costs one short wait, while a server that fails every
// watch at once is asked every few seconds rather than in a tight loop.
type relistPolicy struct {
	Initial, Max time.Duration
	// sleep waits d or until ctx ends (then it returns ctx.Err()); tests
	// replace it to see the delays without waiting them.
	sleep func(ctx context.Context, d time.Duration) error
}

// Defaults: a 410 Gone after an etcd compaction is re-listed at once for
// practical purposes; 5 s between attempts is still several tries within
// the shortest wait of the suite (Timeouts.Delete, 60 s by default).
const (
	defaultRelistInitial = 100 * time.Millisecond
	defaultRelistMax     = 5 * time.Second
)

func (p relistPolicy) withDefaults() relistPolicy {
	if p.Initial <= 0 {
		p.Initial = defaultRelistInitial
	}
	if p.Max < p.Initial {
		p.Max = max(defaultRelistMax, p.Initial)
	}
	if p.sleep == nil {
		p.sleep = sleepCtx
	}
	return p
}

// grow is the delay after d.
func (p relistPolicy) grow(d time.Duration) time.Duration {
	return min(2*d, p.Max)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// follow is list-then-watch until list or handle says done: list returns
// the resource version to watch from, and when the watch fails or the
// server ends it, follow lists again after the policy's delay, so nothing
// between the two is missed and a failing server is not hammered. An error
// from list or from opening the watch ends follow, except a 410 Gone
// (resource version too old), which only needs a fresh list.
//
// Why not client-go's watchtools.UntilWithSync (tried in 38551b5, reverted
// in b70f62d): it does not give two guarantees the waits rely on
// (client-go v0.36.3, the version go.mod selects):
//
//  1. What list hands over is the list's own state, and every later change
//     arrives after it as an event, in order. UntilWithSync's precondition
//     reads the informer's live store (tools/watch/until.go:138-142) once
//     WaitForCacheSync's poll notices the sync, up to 100 ms later
//     (tools/cache/shared_informer.go:369), while the informer keeps
//     applying watch events to that store (tools/watch/informerwatcher.go:162);
//     the conditions then get the listed objects as Added again, followed by
//     the changes the precondition already saw. A wait is shown a later state,
//     then an older one: with a pod deleted just after the watch opened, the
//     precondition saw it gone and the events then said Added, Deleted in 10
//     of 10 runs against a fake clientset. That is how TestDeleteRaceIsSurvived
//     broke under 38551b5. TestPodEventsSeesTheListThenEachChange fails when
//     this is lost.
//  2. Events that arrived before the deadline are handed over (drain, from
//     0f29249 against a TC-14 flake). UntilWithoutRetry selects between the
//     events and ctx.Done() (tools/watch/until.go:74, 88), and the events
//     wait in the informer watcher's private buffer behind an unbuffered
//     channel (tools/watch/informerwatcher.go:46, 118), out of any caller's
//     reach: cancelled after the first of ten listed pods, UntilWithSync
//     did not hand over all ten in 50 of 50 runs.
//     TestDrainHandsOverQueuedEventsAfterTheDeadline fails when this is lost.
//
// Besides, its reflector retries a refused list or watch until ctx ends
// (tools/cache/reflector.go:428-432), so a Forbidden would surface as a
// timeout blaming the pod; the wrapper 38551b5 needed to stop that, and to
// tell the reflector a fake clientset cannot stream lists, was about as
// long as this loop.
func follow(ctx context.Context, rp relistPolicy, list func(context.Context) (string, bool, error),
	watchFrom func(context.Context, string) (watch.Interface, error), handle func(watch.Event) (bool, error)) error {
	rp = rp.withDefaults()
	var delay time.Duration // none before the first list
	next := rp.Initial
	for {
		if delay > 0 {
			if err := rp.sleep(ctx, delay); err != nil {
				return err
			}
		}
		rv, done, err := list(ctx)
		if done || err != nil {
			return err
		}
		w, err := watchFrom(ctx, rv)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
				return err
			}
			delay, next = next, rp.grow(next)
			continue
		}
		progressed, done, err := drain(ctx, w, handle)
		if done {
			return err
		}
		if progressed {
			next = rp.Initial
		}
		delay, next = next, rp.grow(next)
	}
}

// drain hands the watch's events to handle until handle says done, ctx
// ends, or the watch fails or ends (done false: list again). progressed
// says whether any event other than an error arrived. Events already
// queued when ctx ends are still handed over: they arrived in time, and
// select would otherwise pick at random between them and the end (a watch
// whose channel is buffered, as a fake's is, can hold several; a server's
// stream holds none).
func drain(ctx context.Context, w watch.Interface, handle func(watch.Event) (bool, error)) (progressed, done bool, err error) {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			for n := len(w.ResultChan()); n > 0; n-- {
				ev, ok := <-w.ResultChan()
				if !ok || ev.Type == watch.Error {
					break
				}
				progressed = true
				if done, err := handle(ev); done || err != nil {
					return true, true, err
				}
			}
			return progressed, true, ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return progressed, false, nil
			}
			if ev.Type == watch.Error {
				return progressed, false, nil // e.g. 410 Gone: list again
			}
			progressed = true
			if done, err := handle(ev); done || err != nil {
				return true, true, err
			}
		}
	}
}
