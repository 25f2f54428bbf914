package run

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// msgHandler hands every log message to a channel.
type msgHandler struct{ msgs chan string }

func (h msgHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h msgHandler) Handle(_ context.Context, r slog.Record) error {
	select {
	case h.msgs <- r.Message:
	default:
	}
	return nil
}
func (h msgHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h msgHandler) WithGroup(string) slog.Handler      { return h }

// While labctl up is quiet, a tick after Quiet logs that it still runs,
// with its last line; the tick also takes a measurement.
func TestRunHeartbeat(t *testing.T) {
	w := &world{t: t}
	o, d := setup(t, w)
	msgs := make(chan string, 100)
	o.Log = slog.New(msgHandler{msgs})
	var mu sync.Mutex
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	d.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ticks := make(chan time.Time)
	d.Ticker = func(time.Duration) (<-chan time.Time, func()) { return ticks, func() {} }
	var heartbeat string
	w.during = func() {
		mu.Lock()
		now = now.Add(quiet)
		mu.Unlock()
		ticks <- now
		deadline := time.After(time.Minute) // a bound on a hang, not a synchronisation
		for heartbeat == "" {
			select {
			case m := <-msgs:
				if strings.Contains(m, "still running") {
					heartbeat = m
				}
			case <-deadline:
				t.Error("no still-running message within a minute of the tick")
				return
			}
		}
	}
	if _, err := Run(context.Background(), o, d); err != nil {
		t.Fatal(err)
	}
	if want := `labctl up: still running after 25s; its last line: "· cluster  started"`; !strings.HasPrefix(heartbeat, want) {
		t.Errorf("heartbeat %q, want it to begin %q", heartbeat, want)
	}
}
