package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/stages"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

func TestStatusLines(t *testing.T) {
	var b strings.Builder
	writeStageLines(&b, []state.StageRecord{
		{Name: "cluster", Status: "skipped", Duration: 1200 * time.Millisecond, Message: "kind cluster gpu-lab"},
		{Name: "kamaji", Status: "failed", Duration: time.Minute, Message: "stage kamaji: boom"},
	})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != len(stages.Names) {
		t.Fatalf("want one line per stage, got %d:\n%s", len(lines), b.String())
	}
	for i, want := range []string{"cluster  skipped", "kamaji   failed", "tenants  not run", "workers  not run", "hami     not run", "gpus     not run"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want %q", i, lines[i], want)
		}
	}
}

func TestStatusLineWords(t *testing.T) {
	tests := []struct {
		ev   stages.Event
		want string
	}{
		{stages.Event{Stage: "cluster", Kind: stages.EventDone, Duration: 62 * time.Second, Message: "created"}, "✓ cluster      1m2s  created"},
		{stages.Event{Stage: "hami", Kind: stages.EventSkip, Duration: 300 * time.Millisecond, Message: "already there: x"}, "= hami        300ms  already there: x"},
		{stages.Event{Stage: "gpus", Kind: stages.EventFail, Duration: time.Second, Message: "stage gpus: y"}, "✗ gpus           1s  stage gpus: y"},
	}
	for _, tt := range tests {
		if got := statusLine(tt.ev); got != tt.want {
			t.Errorf("statusLine = %q, want %q", got, tt.want)
		}
	}
}

func TestPrinterPlainLinesWhenNotATerminal(t *testing.T) {
	var b strings.Builder
	p := newPrinter(&b, false)
	if p.live {
		t.Fatal("a buffer is not a terminal")
	}
	p.event(stages.Event{Stage: "cluster", Kind: stages.EventStart})
	p.event(stages.Event{Stage: "cluster", Kind: stages.EventDone, Duration: 2 * time.Second, Message: "created"})
	p.event(stages.Event{Stage: "kamaji", Kind: stages.EventPlan, Lines: []string{"helm a\nb"}})
	want := "· cluster  started\n✓ cluster        2s  created\n== kamaji\n  - helm a\n    b\n"
	if b.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", b.String(), want)
	}
}
