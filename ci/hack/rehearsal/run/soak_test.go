package run

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A soak of three rehearsals whose second one's suite fails: all three
// run (each with its own daemon start and stop and its own reports), the
// summary has a row per run saying which failed and why, and the soak
// fails naming that run.
func TestSoakRunsEveryRehearsalAndSummarises(t *testing.T) {
	w := &world{t: t}
	o, d := setup(t, w)
	tests := 0
	w.duringTest = func() {
		tests++
		w.failedCase = map[bool]string{true: "TC-02"}[tests == 2]
	}
	err := Soak(context.Background(), o, d, 3)
	if err == nil || !strings.Contains(err.Error(), "run 2: ") || strings.Contains(err.Error(), "run 1: ") ||
		strings.Contains(err.Error(), "run 3: ") {
		t.Fatalf("Soak: %v, want an error naming run 2 only", err)
	}
	one := []string{"daemon start", "labctl up", "labctl test", "labctl down", "daemon stop"}
	if want := slices.Concat(one, one, one); !slices.Equal(w.events, want) {
		t.Errorf("events %q, want three whole rehearsals %q", w.events, want)
	}
	for i := 1; i <= 3; i++ {
		if _, err := os.Stat(filepath.Join(o.Reports, "run-"+string(rune('0'+i)), ReportFile)); err != nil {
			t.Errorf("run %d's report: %v", i, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(o.Reports, SoakFile))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(md)), "\n")
	var runs []string
	for _, r := range rows {
		if strings.HasPrefix(r, "| 1 |") || strings.HasPrefix(r, "| 2 |") || strings.HasPrefix(r, "| 3 |") {
			runs = append(runs, r)
		}
	}
	if len(runs) != 3 {
		t.Fatalf("soak.md has %d run rows, want 3:\n%s", len(runs), md)
	}
	for i, want := range []string{"| passed: 2 passed, 0 skipped | 2s | 42s | 2s |", "| **failed:** ", "| passed: 2 passed, 0 skipped |"} {
		if !strings.Contains(runs[i], want) {
			t.Errorf("row %d %q lacks %q", i+1, runs[i], want)
		}
	}
	if !strings.Contains(runs[1], "TC-02") {
		t.Errorf("the failed row does not name the failed case: %q", runs[1])
	}
	if !strings.Contains(string(md), "**2 of 3 planned runs passed**") {
		t.Errorf("soak.md lacks the count:\n%s", md)
	}
}

func TestSoakRefusesWhatOneRunIsFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Options)
		n    int
		want string
	}{
		{"no runs", func(*Options) {}, 0, "want at least one"},
		{"keep", func(o *Options) { o.Keep = true }, 2, "--keep"},
		{"fault", func(o *Options) { o.Fault = "worker-restart" }, 2, "one run's experiment"},
		{"interrupt", func(o *Options) { o.Interrupt = &Interrupt{} }, 2, "one run's experiment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &world{t: t}
			o, d := setup(t, w)
			tc.edit(&o)
			err := Soak(context.Background(), o, d, tc.n)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Soak: %v, want %q", err, tc.want)
			}
			if len(w.events) != 0 {
				t.Errorf("something ran: %q", w.events)
			}
		})
	}
}
