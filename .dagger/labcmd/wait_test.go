package labcmd

import (
	"strings"
	"testing"
	"time"
)

func TestNoticeWhileWaiting(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	ticks := make(chan time.Time)
	done := make(chan struct{})
	go func() {
		ticks <- start.Add(30 * time.Second)
		ticks <- start.Add(90*time.Second + 400*time.Millisecond)
	}()
	// The service starts once the second notice is out: closing done right
	// after the second send raced with the check that a tick and the start
	// came together, and the second notice was sometimes (rightly) dropped.
	var got []string
	NoticeWhileWaiting(done, ticks, start, func(s string) {
		if got = append(got, s); len(got) == 2 {
			close(done)
		}
	})
	if len(got) != 2 {
		t.Fatalf("got %d notices, want one per tick before done:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i, want := range []string{"after 30s", "after 1m30s"} {
		if !strings.Contains(got[i], want) {
			t.Errorf("notice %d %q lacks %q", i, got[i], want)
		}
	}
}

func TestNoticeWhileWaitingSaysNothingOnceDone(t *testing.T) {
	ticks := make(chan time.Time, 1)
	done := make(chan struct{})
	close(done)
	ticks <- time.Now()
	NoticeWhileWaiting(done, ticks, time.Now(), func(s string) { t.Errorf("notice after the service started: %q", s) })
}

func TestDindWaitNoticeNamesTheLock(t *testing.T) {
	n := DindWaitNotice(time.Minute)
	for _, want := range []string{"another gpu-lab run", DockerCache, "Locked", "waits", DindImage} {
		if !strings.Contains(n, want) {
			t.Errorf("notice lacks %q: %s", want, n)
		}
	}
}
