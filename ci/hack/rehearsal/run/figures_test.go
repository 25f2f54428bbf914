package run

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// recordedRun is the figures of a kept rehearsal (testdata/runs): its
// labctl up's own stages.json, the lab it ran, and the peaks its
// rehearsal.md reports.
func recordedRun(t *testing.T, dir, labFile string, memGiB, diskGiB float64) Figures {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../testdata/runs", dir, "stages.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []state.StageRecord
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	l, err := lab.Load(labFile)
	if err != nil {
		t.Fatal(err)
	}
	const gib = 1 << 30
	return figuresOf(l, recs, sample{MemoryPeakBytes: int64(memGiB * gib), DiskBytes: int64(diskGiB * gib)})
}

func seedRun(t *testing.T) Figures {
	return recordedRun(t, "2026-12-08-changes/seed", "../lab.yaml", 5.92, 8.41)
}

func threeTenantsRun(t *testing.T) Figures {
	return recordedRun(t, "2026-12-08-changes/three-tenants", "../testdata/runs/2026-12-02-three-tenants/lab.yaml", 7.37, 10.02)
}

// TestFiguresOfRecordedRuns: up is the sum of the stages labctl recorded
// (48.3 + 57.7 + 34.4 + 22.7 + 19.1 + 14.1 s for the seed run), the lab's
// tenants, workers and cards are counted.
func TestFiguresOfRecordedRuns(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		f                       Figures
		tenants, workers, cards int
		up                      string
	}{
		{"seed", seedRun(t), 2, 2, 3, "3m16.2s"},
		{"three tenants", threeTenantsRun(t), 3, 3, 9, "3m58.9s"},
	} {
		f := tc.f
		if f.Tenants != tc.tenants || f.Workers != tc.workers || f.Cards != tc.cards || f.Up.Round(100*time.Millisecond).String() != tc.up {
			t.Errorf("%s: %+v; want %d tenants, %d workers, %d cards, up %s", tc.name, f, tc.tenants, tc.workers, tc.cards, tc.up)
		}
	}
}

// TestFiguresWithoutEveryStageHaveNoUp: a failed or missing stage leaves
// up unmeasured, never a partial sum.
func TestFiguresWithoutEveryStageHaveNoUp(t *testing.T) {
	recs := []state.StageRecord{{Name: "cluster", Status: "done", Duration: time.Minute}}
	if f := figuresOf(lab.Default(), recs, sample{}); f.Up != 0 {
		t.Errorf("up %s with one stage recorded, want 0", f.Up)
	}
	full := []state.StageRecord{}
	for _, n := range []string{"cluster", "kamaji", "tenants", "workers", "hami", "gpus"} {
		full = append(full, state.StageRecord{Name: n, Status: "done", Duration: time.Minute})
	}
	if f := figuresOf(lab.Default(), full, sample{}); f.Up != 6*time.Minute {
		t.Errorf("up %s with every stage done in a minute, want 6m", f.Up)
	}
	full[3].Status = "failed"
	if f := figuresOf(lab.Default(), full, sample{}); f.Up != 0 {
		t.Errorf("up %s with a failed stage, want 0", f.Up)
	}
}

// TestCostSectionOfThreeTenantsAgainstTheSeed: the two kept runs of
// 2026-12-08 compared as --baseline compares them.
func TestCostSectionOfThreeTenantsAgainstTheSeed(t *testing.T) {
	r := Report{Figures: threeTenantsRun(t), Baseline: &Baseline{Dir: "seed-reports", Figures: seedRun(t)}}
	var b strings.Builder
	r.costSection(func(format string, a ...any) { fmt.Fprintf(&b, format, a...) })
	for _, want := range []string{
		"## Cost per tenant (against seed-reports, lab gpu-lab)",
		"| tenants | 2 | 3 | +1 | |",
		"| cards | 3 | 9 | +6 | |",
		"| up | 3m16.2s | 3m58.9s | +42.7 s | +42.7 s |",
		"| containers' memory peak | 5.92 GiB | 7.37 GiB | +1.45 GiB | +1.45 GiB |",
		"`up` is 1.22× the baseline's.",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("cost section lacks %q:\n%s", want, b.String())
		}
	}
	if (Report{Figures: r.Figures}).markdown() == "" || strings.Contains((Report{Figures: r.Figures}).markdown(), "Cost per tenant") {
		t.Error("a report without a baseline has a cost section")
	}
}

// TestReadBaseline: a directory without figures.json, or whose up did not
// finish, is refused naming it; what a run writes reads back.
func TestReadBaseline(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadBaseline(dir); err == nil || !strings.Contains(err.Error(), "has no figures.json") {
		t.Errorf("no figures.json: %v", err)
	}
	write := func(f Figures) {
		b, _ := json.Marshal(f)
		if err := os.WriteFile(filepath.Join(dir, FiguresFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(Figures{Lab: "gpu-lab", Tenants: 2})
	if _, err := ReadBaseline(dir); err == nil || !strings.Contains(err.Error(), "did not finish every stage") {
		t.Errorf("no up: %v", err)
	}
	write(seedRun(t))
	if b, err := ReadBaseline(dir); err != nil || b.Figures != seedRun(t) {
		t.Errorf("ReadBaseline = %+v, %v; want the seed run's figures", b, err)
	}
}

// TestRunWritesItsFiguresAndComparesWithItsBaseline: a run writes
// figures.json, and its report has the cost section of --baseline.
func TestRunWritesItsFiguresAndComparesWithItsBaseline(t *testing.T) {
	w := &world{t: t}
	o, d := setup(t, w)
	o.Baseline = &Baseline{Dir: "seed-reports", Figures: seedRun(t)}
	rep, err := Run(context.Background(), o, d)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(o.Reports, FiguresFile))
	if err != nil {
		t.Fatal(err)
	}
	var f Figures
	if err := json.Unmarshal(b, &f); err != nil || f != rep.Figures || f.Tenants != len(lab.Default().Tenants) || f.MemoryPeakBytes == 0 {
		t.Errorf("figures.json %s (%v), report's %+v", b, err, rep.Figures)
	}
	if md := rep.markdown(); !strings.Contains(md, "## Cost per tenant (against seed-reports, lab gpu-lab)") {
		t.Errorf("report lacks the cost section:\n%s", md)
	}
}
