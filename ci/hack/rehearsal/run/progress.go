package run

import (
	"fmt"
	"sync"
	"time"
)

// HeartbeatCheck is how often the rehearsal looks whether a step has been
// quiet, and Quiet how long a step may print nothing before the rehearsal
// says it is still running: together at most 30 s without a line.
const (
	heartbeatCheck = 5 * time.Second
	quiet          = 25 * time.Second
)

// heartbeat tracks one running step's output: when it last printed and
// what, so that a quiet step is reported with its elapsed time and its last
// line (labctl up prints a line per stage, and a stage takes minutes).
type heartbeat struct {
	mu       sync.Mutex
	what     string
	started  time.Time
	last     time.Time
	lastLine string
}

// newHeartbeat watches a step named what ("labctl up", "starting the
// private daemon") begun at now.
func newHeartbeat(what string, now time.Time) *heartbeat {
	return &heartbeat{what: what, started: now, last: now}
}

// saw records a line the step printed at now.
func (h *heartbeat) saw(now time.Time, line string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last, h.lastLine = now, line
}

// due returns the still-running message when the step has been quiet for
// Quiet or longer at now, and counts the message as a line (the next one
// is due Quiet later).
func (h *heartbeat) due(now time.Time, s sample) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if now.Sub(h.last) < quiet {
		return "", false
	}
	h.last = now
	msg := fmt.Sprintf("%s: still running after %s", h.what, now.Sub(h.started).Round(time.Second))
	if h.lastLine != "" {
		msg += fmt.Sprintf("; its last line: %q", h.lastLine)
	}
	if s.DiskBytes > 0 || s.MemoryPeakBytes > 0 {
		msg += fmt.Sprintf("; disk %s, containers' memory peak %s", human(s.DiskBytes), human(s.MemoryPeakBytes))
	}
	return msg, true
}

// human is a byte count in MiB or GiB for progress lines and the report.
func human(b int64) string {
	switch {
	case b <= 0:
		return "not measured"
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	default:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
}
