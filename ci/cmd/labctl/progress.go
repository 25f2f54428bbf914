package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/gpu-lab/gpu-lab/ci/stages"
)

// printer turns runner events into status lines: a live line with elapsed
// time on a terminal, plain lines in CI (CI set) or when piped.
type printer struct {
	w       io.Writer
	live    bool
	verbose bool

	mu    sync.Mutex
	stop  chan struct{}
	start time.Time
}

func newPrinter(w io.Writer, verbose bool) *printer {
	live := false
	if f, ok := w.(*os.File); ok && os.Getenv("CI") == "" {
		live = term.IsTerminal(int(f.Fd()))
	}
	return &printer{w: w, live: live, verbose: verbose}
}

// statusLine is one finished stage, the same words on a terminal and in CI.
func statusLine(ev stages.Event) string {
	var mark string
	switch ev.Kind {
	case stages.EventDone:
		mark = "✓"
	case stages.EventSkip:
		mark = "="
	case stages.EventFail:
		mark = "✗"
	default:
		mark = "·"
	}
	line := fmt.Sprintf("%s %-8s", mark, ev.Stage)
	if ev.Kind != stages.EventInfo {
		line += fmt.Sprintf(" %8s", ev.Duration.Round(100*time.Millisecond))
	}
	if ev.Message != "" {
		line += "  " + ev.Message
	}
	return line
}

func (p *printer) event(ev stages.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Kind {
	case stages.EventPlan:
		fmt.Fprintf(p.w, "== %s\n", ev.Stage)
		for _, l := range ev.Lines {
			fmt.Fprintf(p.w, "  - %s\n", strings.ReplaceAll(l, "\n", "\n    "))
		}
		return
	case stages.EventStart:
		p.start = time.Now()
		if !p.live {
			fmt.Fprintf(p.w, "· %-8s started\n", ev.Stage)
			return
		}
		p.stop = make(chan struct{})
		go p.tick(ev.Stage, p.stop, p.start)
		return
	}
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintln(p.w, statusLine(ev))
}

func (p *printer) tick(stage string, stop chan struct{}, start time.Time) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		p.mu.Lock()
		select {
		case <-stop: // the stage ended while this tick waited for the lock
			p.mu.Unlock()
			return
		default:
		}
		fmt.Fprintf(p.w, "\r\033[K⋯ %-8s %8s", stage, time.Since(start).Round(time.Second))
		p.mu.Unlock()
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}
