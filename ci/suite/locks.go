package suite

import (
	"context"
	"sync"
)

// cardLocks lets a scenario hold its cards while it runs. A scenario takes
// all of its cards at once or waits, so two scenarios can never each hold a
// card the other waits for; scenarios on different cards run side by side.
type cardLocks struct {
	mu   sync.Mutex
	held map[string]bool
	// freed is closed (and replaced) whenever cards are released.
	freed chan struct{}
}

func newCardLocks() *cardLocks {
	return &cardLocks{held: map[string]bool{}, freed: make(chan struct{})}
}

// acquire waits until every key is free and takes them all, or returns
// ctx's error.
func (l *cardLocks) acquire(ctx context.Context, keys []string) error {
	for {
		l.mu.Lock()
		free := true
		for _, k := range keys {
			free = free && !l.held[k]
		}
		if free {
			for _, k := range keys {
				l.held[k] = true
			}
			l.mu.Unlock()
			return nil
		}
		wait := l.freed
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wait:
		}
	}
}

func (l *cardLocks) release(keys []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		delete(l.held, k)
	}
	close(l.freed)
	l.freed = make(chan struct{})
}
