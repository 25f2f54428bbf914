package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/internal/nettest"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/stages"
	"github.com/gpu-lab/gpu-lab/ci/state"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
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
	for i, want := range []string{"cluster  skipped", "kamaji   failed", "tenants  not run", "workers  not run",
		"hami     not run", "gpus     not run"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want %q", i, lines[i], want)
		}
	}
}

// TestStatusOfLocalEnvironment: a state dir written by `labctl testenv up`
// has no stages, so status prints none of the six "not run" lines, and a
// tenant that does not answer comes with what starts it.
func TestStatusOfLocalEnvironment(t *testing.T) {
	d := writeLocalEnvState(t, kubeconfigFor(nettest.RefusingAddr(t)))
	out, stderr, err := run(t, newStatusCommand, "--state-dir", string(d))
	if ee, ok := err.(exitError); !ok || ee.code != 1 {
		t.Fatalf("labctl status with no tenant answering: %v, want exit code 1\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("want header, one stages line and two tenants, got:\n%s", out)
	}
	if want := "lab gpu-lab (local test environment: " + testenv.DoubleNotice + "), state dir " + string(d); lines[0] != want {
		t.Errorf("header %q, want %q", lines[0], want)
	}
	if strings.Contains(out, "stage ") || strings.Contains(out, "not run") {
		t.Errorf("stage lines for an environment without stages:\n%s", out)
	}
	for i, tn := range []string{"tenant-a", "tenant-b"} {
		l := lines[2+i]
		if !strings.HasPrefix(l, "tenant "+tn) || !strings.Contains(l, "not answering") ||
			!strings.HasSuffix(l, "is `labctl testenv up --state-dir "+string(d)+"` still running?") {
			t.Errorf("tenant line %q: want it not answering, with what starts the environment", l)
		}
	}
}

// TestStatusOfRealLab: a lab state dir keeps its stage lines, and a tenant
// line gets no hint about the local environment.
func TestStatusOfRealLab(t *testing.T) {
	d := newStateDir(t, state.RealLab)
	if err := d.WriteBackend("kind+kamaji+hami on local docker"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if writeStatus(&b, d, lab.Default(), []state.StageRecord{{Name: "cluster", Status: "done"}},
		func(tn string) (string, bool) { return "https://x: not answering (refused)", false }) {
		t.Error("a lab with stages not run and tenants not answering was called healthy")
	}
	out := b.String()
	for _, want := range []string{"lab gpu-lab (kind+kamaji+hami on local docker)", "stage  cluster  done",
		"stage  gpus     not run", "tenant tenant-b   https://x: not answering (refused)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "testenv") {
		t.Errorf("a real lab's status mentions the local environment:\n%s", out)
	}
}

func TestStatusLineWords(t *testing.T) {
	tests := []struct {
		ev   stages.Event
		want string
	}{
		{stages.Event{Stage: "cluster", Kind: stages.EventDone, Duration: 62 * time.Second, Message: "created"},
			"✓ cluster      1m2s  created"},
		{stages.Event{Stage: "hami", Kind: stages.EventSkip, Duration: 300 * time.Millisecond, Message: "already there: x"},
			"= hami        300ms  already there: x"},
		{stages.Event{Stage: "gpus", Kind: stages.EventFail, Duration: time.Second, Message: "stage gpus: y"},
			"✗ gpus           1s  stage gpus: y"},
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

// status exits 0 only for a healthy lab: every stage done or skipped as
// existing, every tenant answering with all its nodes Ready.
func TestStatusHealth(t *testing.T) {
	d := newStateDir(t, state.RealLab)
	all := func(status string) []state.StageRecord {
		var recs []state.StageRecord
		for _, n := range stages.Names {
			recs = append(recs, state.StageRecord{Name: n, Status: status})
		}
		return recs
	}
	failedLast := all(stages.StatusDone)
	failedLast[len(failedLast)-1].Status = stages.StatusFailed
	ok := func(string) (string, bool) { return "https://x: 1/1 nodes Ready", true }
	notReady := func(string) (string, bool) { return "https://x: 0/1 nodes Ready", false }
	for _, tc := range []struct {
		name   string
		recs   []state.StageRecord
		tenant func(string) (string, bool)
		want   bool
	}{
		{"every stage done, tenants ready", all(stages.StatusDone), ok, true},
		{"stages skipped as existing", all(stages.StatusSkipped), ok, true},
		{"a stage failed", failedLast, ok, false},
		{"a stage not run", all(stages.StatusDone)[:2], ok, false},
		{"a tenant's node not ready", all(stages.StatusDone), notReady, false},
	} {
		var b strings.Builder
		if got := writeStatus(&b, d, lab.Default(), tc.recs, tc.tenant); got != tc.want {
			t.Errorf("%s: healthy = %v, want %v\n%s", tc.name, got, tc.want, b.String())
		}
	}
}
