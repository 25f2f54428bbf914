package main

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// The watch ends its context, saying why, at the first look after the
// parent changed — and not before, however many looks come first.
func TestWatchParentEndsWhenTheParentChanges(t *testing.T) {
	var ppid atomic.Int64
	ppid.Store(4711)
	tick := make(chan time.Time)
	ctx, cancel := watchParent(context.Background(), func() int { return int(ppid.Load()) }, tick)
	defer cancel()
	for range 3 {
		tick <- time.Now()
	}
	if ctx.Err() != nil {
		t.Fatalf("ended while the parent was still 4711: %v", context.Cause(ctx))
	}
	ppid.Store(1) // re-parented to init
	tick <- time.Now()
	<-ctx.Done()
	if !errors.Is(context.Cause(ctx), errOrphaned) {
		t.Fatalf("cause = %v, want %v", context.Cause(ctx), errOrphaned)
	}
}

// Cancelling the watch is not taken for an orphaning.
func TestWatchParentCancelIsNotOrphaned(t *testing.T) {
	ctx, cancel := watchParent(context.Background(), func() int { return 4711 }, make(chan time.Time))
	cancel()
	<-ctx.Done()
	if errors.Is(context.Cause(ctx), errOrphaned) {
		t.Fatal("a cancelled watch says the parent is gone")
	}
}
