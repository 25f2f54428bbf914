package e2e

import (
	"context"
	"testing"
	"time"
)

// startEnv's timeout counts from the package's turn to boot, not from the
// call: a test that waited longer than its timeout for the seed
// environment's first boot (which may build the Kubernetes binaries) still
// gets its whole budget. The turn is released only after the time it was
// released is recorded, so a deadline made at the turn is never earlier
// than that time plus the timeout.
func TestStartEnvTimeoutBeginsAtItsTurn(t *testing.T) {
	const timeout = time.Minute
	booting.Lock()
	var released time.Time
	go func() {
		time.Sleep(200 * time.Millisecond)
		released = time.Now()
		booting.Unlock()
	}()
	deadline, err := inTurn(timeout, func(ctx context.Context) (time.Time, error) {
		d, _ := ctx.Deadline()
		return d, ctx.Err()
	})
	if err != nil || deadline.Before(released.Add(timeout)) {
		t.Fatalf("the turn came at %s and its budget ends at %s (%v); want at least %s later", released.Format(time.StampMilli),
			deadline.Format(time.StampMilli), err, timeout)
	}
}
