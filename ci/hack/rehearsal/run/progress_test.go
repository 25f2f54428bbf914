package run

import (
	"strings"
	"testing"
	"time"
)

// A step that prints nothing for Quiet gets a still-running line, at most
// one per Quiet, naming its elapsed time, last line and the measurements.
func TestHeartbeat(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	s := sample{DiskBytes: 3 << 30, MemoryPeakBytes: 1536 << 20}
	for _, tc := range []struct {
		name    string
		line    time.Duration // when the step printed, after t0 (<0: never)
		at      time.Duration
		want    bool
		wantMsg []string
	}{
		{"quiet from the start", -1, quiet, true,
			[]string{"labctl up: still running after 25s", "disk 3.00 GiB, containers' memory peak 1.50 GiB"}},
		{"not yet quiet long enough", -1, quiet - time.Second, false, nil},
		{"printed recently", 20 * time.Second, 40 * time.Second, false, nil},
		{"printed, then quiet", 20 * time.Second, 45 * time.Second, true, []string{"after 45s", `its last line: "✓ cluster 1m0s"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHeartbeat("labctl up", t0)
			if tc.line >= 0 {
				h.saw(t0.Add(tc.line), "✓ cluster 1m0s")
			}
			msg, ok := h.due(t0.Add(tc.at), s)
			if ok != tc.want {
				t.Fatalf("due = %v (%q), want %v", ok, msg, tc.want)
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			if ok {
				// The message counts as a line: the next is due Quiet later.
				if _, again := h.due(t0.Add(tc.at+quiet-time.Second), s); again {
					t.Error("a second message within Quiet")
				}
				if _, again := h.due(t0.Add(tc.at+quiet), s); !again {
					t.Error("no second message after another Quiet")
				}
			}
		})
	}
	if quiet+heartbeatCheck > 30*time.Second {
		t.Errorf("a quiet step could go %s without a line; at most 30 s", quiet+heartbeatCheck)
	}
}

func TestHuman(t *testing.T) {
	for b, want := range map[int64]string{0: "not measured", -1: "not measured", 512 << 20: "512.0 MiB", 5 << 30: "5.00 GiB"} {
		if got := human(b); got != want {
			t.Errorf("human(%d) = %q, want %q", b, got, want)
		}
	}
}
