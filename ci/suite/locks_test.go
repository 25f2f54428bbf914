package suite

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestCardLocks(t *testing.T) {
	l := newCardLocks()
	ctx := context.Background()
	if err := l.acquire(ctx, []string{"w#0"}); err != nil {
		t.Fatal(err)
	}
	// Another card of the same worker is free: taken at once, in this goroutine.
	if err := l.acquire(ctx, []string{"w#1"}); err != nil {
		t.Fatal(err)
	}
	// A scenario needing a held card waits for it, and takes all its cards
	// or none: w#2 stays free while it waits.
	var got atomic.Bool
	done := make(chan error)
	go func() {
		err := l.acquire(ctx, []string{"w#2", "w#0"})
		got.Store(err == nil)
		done <- err
	}()
	if err := l.acquire(ctx, []string{"w#2"}); err != nil {
		t.Fatal(err)
	}
	l.release([]string{"w#2"})
	if got.Load() {
		t.Fatal("took w#0 while another scenario held it")
	}
	l.release([]string{"w#0"})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// A cancelled wait gives up with the context's error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := l.acquire(cctx, []string{"w#1"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire of a held card with a cancelled context = %v, want context.Canceled", err)
	}
}
