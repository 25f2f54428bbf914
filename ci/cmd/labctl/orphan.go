package main

import (
	"context"
	"errors"
	"os"
	"time"
)

// errOrphaned is why a long-running command stops when the process that
// started it is gone: `go run ./ci/cmd/labctl testenv up &` and then
// `kill $!` ends go run, not labctl, and nothing else would stop the
// environment's processes (they die with labctl, not with its parent).
var errOrphaned = errors.New("the process that started labctl is gone")

// parentCheckEvery is how often a long-running command looks at its parent.
const parentCheckEvery = 500 * time.Millisecond

// whenOrphaned returns a context that ends, with cause errOrphaned, once
// labctl's parent process is no longer the one it started under (the kernel
// re-parents an orphan to init or a subreaper). A labctl started by init
// itself (a container's PID 1 parent, a service manager) is never orphaned.
func whenOrphaned(ctx context.Context) (context.Context, context.CancelFunc) {
	tick := time.NewTicker(parentCheckEvery)
	ctx, cancel := watchParent(ctx, os.Getppid, tick.C)
	return ctx, func() { tick.Stop(); cancel() }
}

// watchParent is whenOrphaned with the parent's pid and the clock given.
func watchParent(ctx context.Context, getppid func() int, tick <-chan time.Time) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	first := getppid()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick:
				if getppid() != first {
					cancel(errOrphaned)
					return
				}
			}
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}
