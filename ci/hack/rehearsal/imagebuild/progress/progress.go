// Package progress makes a long step speak: a line at least every half
// minute with what it is, the time elapsed and the last line of its log.
package progress

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"
)

// progressEvery is how often a long step speaks: never more than half a
// minute of silence.
const progressEvery = 25 * time.Second

// Speak logs, until stop is called, a line every progressEvery naming
// what, the elapsed time and the last line of the log at logPath.
func Speak(ctx context.Context, log *slog.Logger, what, logPath string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				log.Info(progressLine(what, now.Sub(start), lastLine(logPath)), "log", logPath)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// progressLine is one progress line of a long step.
func progressLine(what string, elapsed time.Duration, last string) string {
	line := fmt.Sprintf("building %s: %s elapsed", what, elapsed.Round(time.Second))
	if last != "" {
		line += "; last: " + last
	}
	return line
}

// lastLine is the last non-empty line of the file (at most 200 bytes of it).
func lastLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	return l
}
