package stages

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestWaitRetriesTransientErrorsAndNamesTheLastCondition(t *testing.T) {
	calls := 0
	cond, err := waitFor(context.Background(), time.Second, time.Millisecond, func(context.Context) (bool, string, error) {
		calls++
		switch calls {
		case 1:
			return false, "", errors.New("connection refused")
		case 2:
			return false, "status Provisioning", nil
		}
		return true, "status Ready", nil
	})
	if err != nil || cond != "status Ready" || calls != 3 {
		t.Fatalf("waitFor = %q, %v after %d calls", cond, err, calls)
	}

	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cond, err = waitLogged(context.Background(), 30*time.Millisecond, time.Millisecond, log, "TenantControlPlane x",
		func(context.Context) (bool, string, error) {
			return false, "status Provisioning", nil
		})
	if err == nil || !strings.Contains(err.Error(), "not ready after") || cond != "status Provisioning" {
		t.Fatalf("timeout: %q, %v", cond, err)
	}
	if n := strings.Count(logs.String(), "status Provisioning"); n != 1 {
		t.Errorf("a condition is logged once per change, got %d lines:\n%s", n, logs.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	never := func(context.Context) (bool, string, error) { return false, "x", nil }
	if _, err := waitFor(ctx, time.Second, time.Millisecond, never); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
}

// A request the wait's own deadline stopped is not an observation: the
// stage error names the last status seen, not client-go's rate limiter
// (as it did for a three-tenant lab's TenantControlPlane on a loaded
// machine: "last seen: client rate limiter Wait returned an error: rate:
// Wait(n=1) would exceed context deadline").
func TestWaitKeepsTheLastObservationPastItsOwnDeadline(t *testing.T) {
	for _, end := range []error{
		errors.New("client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context deadline"),
		fmt.Errorf("get tenantcontrolplanes: %w", context.DeadlineExceeded),
	} {
		calls := 0
		cond, err := waitFor(context.Background(), 50*time.Millisecond, time.Millisecond, func(context.Context) (bool, string, error) {
			calls++
			if calls == 1 {
				return false, "status Provisioning", nil
			}
			return false, "", end
		})
		if err == nil || cond != "status Provisioning" {
			t.Errorf("%v: waitFor = %q, %v; want the timeout naming status Provisioning", end, cond, err)
		}
	}
	// A real error is still a condition.
	cond, _ := waitFor(context.Background(), 20*time.Millisecond, time.Millisecond, func(context.Context) (bool, string, error) {
		return false, "", errors.New("connection refused")
	})
	if cond != "connection refused" {
		t.Errorf("a transient error is not named: %q", cond)
	}
}
