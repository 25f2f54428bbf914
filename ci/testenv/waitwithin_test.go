package testenv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A check's attempt that answers only after waitWithin's timeout still
// gives the error its answer (HAMi's /metrics scraped slowly on a loaded
// machine), not the attempt cut short: the attempt here always outlasts
// the timeout, so the old behaviour always failed it.
func TestWaitWithinReportsASlowAnswer(t *testing.T) {
	check := func(ctx context.Context) (bool, error) {
		select {
		case <-time.After(300 * time.Millisecond):
			return false, errors.New("HAMi sees 0/1 cards, missing GPU-0")
		case <-ctx.Done():
			return false, fmt.Errorf("scrape HAMi's metrics: %w", ctx.Err())
		}
	}
	err := waitWithin(context.Background(), 50*time.Millisecond, "HAMi sees every card", 10*time.Millisecond, nil, check)
	if err == nil || !strings.Contains(err.Error(), "missing GPU-0") || !strings.Contains(err.Error(), "waiting for HAMi sees every card") {
		t.Fatalf("err = %v; want the wait's timeout reporting the slow answer", err)
	}
}
