package suite

import (
	"context"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// follow waits on what lw lists and watches until synced or handle says
// done, through client-go's watchtools.UntilWithSync: its reflector lists,
// watches from the list's resource version, lists again after a 410 Gone
// or a watch the server ended (with backoff), and uses bookmarks and
// watch-list streams where the server offers them.
//
// synced sees the store once it holds the list and the watch after it is
// open, so a change synced causes (TC-14 creates its pods there) is seen
// when it happens; handle then sees every event, starting with an Added
// per listed object.
//
// The reflector retries every failure until ctx ends; a list refused (no
// permission, an unreachable tenant) or a watch refused for another reason
// than an expired resource version ends follow at once with that error, as
// the hand-written loop this replaced did: it would not heal within a wait.
// client is the clientset lw calls (a fake clientset tells the reflector
// it cannot stream lists).
func follow(ctx context.Context, lw *cache.ListWatch, client any, objType runtime.Object, synced func(cache.Store) (bool, error), handle func(watch.Event) (bool, error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		refused  error
		watching = make(chan struct{})
		opened   sync.Once
	)
	refuse := func(err error) {
		mu.Lock()
		if refused == nil {
			refused = err
		}
		mu.Unlock()
		cancel()
	}
	guarded := &cache.ListWatch{
		ListWithContextFunc: func(lctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			obj, err := lw.ListWithContextFunc(lctx, o)
			if err != nil && lctx.Err() == nil {
				refuse(err)
			}
			return obj, err
		},
		WatchFuncWithContext: func(wctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			w, err := lw.WatchFuncWithContext(wctx, o)
			if err == nil {
				opened.Do(func() { close(watching) })
				return w, nil
			}
			// A watch-list stream the server refuses makes the reflector
			// fall back to a list, which decides.
			streaming := o.SendInitialEvents != nil && *o.SendInitialEvents
			if wctx.Err() == nil && !streaming && !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
				refuse(err)
			}
			return nil, err
		},
	}
	precondition := func(store cache.Store) (bool, error) {
		select {
		case <-watching:
		case <-ctx.Done():
			return false, ctx.Err()
		}
		return synced(store)
	}
	_, err := watchtools.UntilWithSync(ctx, cache.ToListWatcherWithWatchListSemantics(guarded, client), objType, precondition, handle)
	mu.Lock()
	defer mu.Unlock()
	if refused != nil {
		return refused
	}
	if err != nil && ctx.Err() != nil {
		return ctx.Err() // the callers name the wait that ran out
	}
	return err
}
