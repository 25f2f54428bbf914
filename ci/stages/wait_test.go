package stages

import (
	"bytes"
	"context"
	"errors"
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
	cond, err = waitLogged(context.Background(), 30*time.Millisecond, time.Millisecond, log, "TenantControlPlane x", func(context.Context) (bool, string, error) {
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
	if _, err := waitFor(ctx, time.Second, time.Millisecond, func(context.Context) (bool, string, error) { return false, "x", nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
}
