package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseInterrupt(t *testing.T) {
	for _, c := range []struct {
		in   string
		want *Interrupt
		err  string
	}{
		{"", nil, ""},
		{"workers:KILL+20s", &Interrupt{Stage: "workers", Signal: syscall.SIGKILL, After: 20 * time.Second}, ""},
		{"hami:sigint", &Interrupt{Stage: "hami", Signal: syscall.SIGINT}, ""},
		{"kamaji:TERM+0s", &Interrupt{Stage: "kamaji", Signal: syscall.SIGTERM}, ""},
		{"worker:KILL", nil, "STAGE one of cluster, kamaji, tenants, workers, hami, gpus"},
		{"workers", nil, "want STAGE:SIGNAL[+DELAY]"},
		{"workers:HUP", nil, `signal "HUP": want KILL, INT or TERM`},
		{"workers:KILL+soon", nil, `delay "soon"`},
		{"workers:KILL+-1s", nil, `delay "-1s"`},
	} {
		got, err := ParseInterrupt(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one saying %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.in, err)
		case c.err == "" && fmt.Sprint(got) != fmt.Sprint(c.want):
			t.Errorf("%q: got %+v, want %+v", c.in, got, c.want)
		}
	}
}

// interrupted is the fake of the first labctl up: it starts cluster and
// kamaji, then waits to be interrupted (its context's end stands for the
// signal), and records which signal it was given.
func (w *world) interrupted(ctx context.Context, c command, log io.Writer, line func(stream, string)) (usage, error) {
	for _, s := range []string{"cluster", "kamaji"} {
		line(stdout, fmt.Sprintf("· %-8s started", s))
		fmt.Fprintln(log, "stage", s)
	}
	writeStages(w.t, argAfter(c.Args, "--state-dir"), []stageRecord{{"cluster", "done", time.Minute, ""}})
	if w.upEndsFirst {
		return usage{Wall: time.Minute}, nil
	}
	select {
	case <-ctx.Done():
		w.record(fmt.Sprintf("labctl up-interrupted got %v", c.Stop))
		return usage{Wall: 90 * time.Second, ExitCode: -1}, nil
	case <-time.After(10 * time.Second):
		w.t.Error("the interrupted up was never interrupted")
		return usage{ExitCode: 1}, nil
	}
}

func TestInterruptedUpIsResumedAndCleanedUp(t *testing.T) {
	w := &world{t: t, leftovers: []string{"container gpu-lab-control-plane (Exited (137) 2 seconds ago)", "network kind"}}
	o, d := setup(t, w)
	o.Interrupt = &Interrupt{Stage: "kamaji", Signal: syscall.SIGKILL}
	d.After = func(time.Duration) <-chan time.Time { c := make(chan time.Time, 1); c <- time.Time{}; return c }
	rep, err := Run(context.Background(), o, d)
	if err != nil {
		t.Fatalf("Run: %v\nevents %v", err, w.events)
	}
	want := "labctl up-interrupted,labctl up-interrupted got killed,labctl up,labctl test,labctl down"
	if got := strings.Join(w.events[1:6], ","); got != want {
		t.Errorf("events %v, want after the daemon's start %s", w.events, want)
	}
	if rep.Interrupt == nil || !rep.Interrupt.Sent || rep.Interrupt.ExitCode != -1 || len(rep.Interrupt.Left) != 2 {
		t.Fatalf("interrupt record %+v", rep.Interrupt)
	}
	md, err := os.ReadFile(filepath.Join(o.Reports, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"## Interrupted labctl up", "SIGKILL was sent", "start of stage kamaji",
		"container gpu-lab-control-plane (Exited (137)", "| up-interrupted |"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("rehearsal.md lacks %q", s)
		}
	}
	if _, err := os.Stat(filepath.Join(o.Reports, "labctl-up-interrupted.log")); err != nil {
		t.Errorf("the interrupted up's log: %v", err)
	}
}

func TestAnUpThatEndsBeforeTheSignalFailsTheRehearsal(t *testing.T) {
	w := &world{t: t, upEndsFirst: true}
	o, d := setup(t, w)
	o.Interrupt = &Interrupt{Stage: "workers", Signal: syscall.SIGINT}
	rep, err := Run(context.Background(), o, d)
	if err == nil || !strings.Contains(err.Error(), "before it was 0s into stage workers: nothing was interrupted") {
		t.Fatalf("Run: %v, want the interruption said not made", err)
	}
	if rep.Interrupt == nil || rep.Interrupt.Sent {
		t.Errorf("interrupt record %+v, want not sent", rep.Interrupt)
	}
	for _, e := range w.events {
		if e == "labctl up" || e == "labctl test" {
			t.Errorf("%s ran after a failed interruption: %v", e, w.events)
		}
	}
	if !strings.Contains(w.events[len(w.events)-1], "daemon stop") {
		t.Errorf("events %v: the daemon was not stopped last", w.events)
	}
}
