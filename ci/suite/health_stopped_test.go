package suite

import (
	"context"
	"log/slog"
	"testing"
	"time"
)

// stoppedLineHandler records, when the CaseStoppedMsg record is handled,
// whether the case's context had already ended.
type stoppedLineHandler struct {
	slog.Handler
	ctx     context.Context
	endedAt chan error
}

func (h *stoppedLineHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *stoppedLineHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == CaseStoppedMsg {
		h.endedAt <- h.ctx.Err()
	}
	return nil
}

// The "case stopped" line is logged once the case's context has ended: a
// test undoing its fault on that line (ci/test/e2e's etcd fault) can never let
// the stopped case run on.
func TestCaseStoppedIsLoggedAfterTheCaseStopped(t *testing.T) {
	r, _ := fakeRunner(nil)
	r.healthEvery = time.Millisecond
	b := &brokenTenant{tenant: "tenant-a"}
	b.breakNow("etcd (pid 7) is suspended (SIGSTOP)")
	r.cfg.Health = b.health
	ctx, stopCase := context.WithCancelCause(context.Background())
	defer stopCase(nil)
	h := &stoppedLineHandler{Handler: slog.DiscardHandler, ctx: ctx, endedAt: make(chan error, 1)}
	r.log = slog.New(h)
	stop := r.watchHealth(ctx, stopCase, []string{"tenant-a"})
	defer stop()
	if err := <-h.endedAt; err == nil {
		t.Fatal("the case-stopped line was logged while the case's context still ran")
	}
	if d := stoppedBy(ctx); d == nil {
		t.Fatalf("the case was not stopped with the component named: cause %v", context.Cause(ctx))
	}
}
