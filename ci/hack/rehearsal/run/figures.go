package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/stages"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// FiguresFile holds a run's figures beside rehearsal.md, for a later run
// to compare with (--baseline): the cost per tenant of a lab with more
// tenants than the baseline's (issue 42).
const FiguresFile = "figures.json"

// Figures are what a run measured of its lab, as figures.json keeps them.
type Figures struct {
	Lab     string `json:"lab"`
	Tenants int    `json:"tenants"`
	Workers int    `json:"workers"`
	Cards   int    `json:"cards"`
	// Up is the sum of labctl up's stages as its stages.json records
	// them (the bundle's load before them not counted); 0 when a stage
	// did not finish.
	Up              time.Duration `json:"up"`
	MemoryPeakBytes int64         `json:"memoryPeakBytes"`
	DiskBytes       int64         `json:"diskBytes"`
}

// figuresOf are the figures of a run of lab l: its stage records and its
// peaks.
func figuresOf(l *lab.Lab, recs []state.StageRecord, p sample) Figures {
	f := Figures{Lab: l.Name, Tenants: len(l.Tenants), MemoryPeakBytes: p.MemoryPeakBytes, DiskBytes: p.DiskBytes}
	for _, t := range l.Tenants {
		f.Workers += len(t.Workers)
		for _, w := range t.Workers {
			f.Cards += len(w.Cards())
		}
	}
	done := map[string]bool{}
	for _, r := range recs {
		if r.Status != stages.StatusDone && r.Status != stages.StatusSkipped {
			f.Up = 0
			return f
		}
		done[r.Name] = true
		f.Up += r.Duration
	}
	for _, n := range stages.Names {
		if !done[n] {
			f.Up = 0
			break
		}
	}
	return f
}

// Baseline is another run's figures this run's report compares with.
type Baseline struct {
	Dir     string
	Figures Figures
}

// ReadBaseline reads the figures a run wrote into its reports directory
// dir; a directory without them (a run from before figures.json, or not
// a rehearsal's) is named with the fix.
func ReadBaseline(dir string) (*Baseline, error) {
	p := filepath.Join(dir, FiguresFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("baseline %s has no %s: give the --reports directory of a rehearsal run that wrote one", dir, FiguresFile)
	}
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	var f Figures
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("baseline %s: %w", p, err)
	}
	if f.Up == 0 {
		return nil, fmt.Errorf("baseline %s: its labctl up did not finish every stage, so it has no up time to compare with", p)
	}
	return &Baseline{Dir: dir, Figures: f}, nil
}

// costSection renders the cost of this run's lab against the baseline's:
// each figure, what it added, and that per tenant added (issue 42: three
// tenants ≤ 1.3× the seed lab's up).
func (r Report) costSection(w func(string, ...any)) {
	if r.Baseline == nil {
		return
	}
	b, f := r.Baseline.Figures, r.Figures
	w("\n## Cost per tenant (against %s, lab %s)\n\n", r.Baseline.Dir, b.Lab)
	if f.Up == 0 {
		w("Not measured: this run's labctl up did not finish every stage.\n")
		return
	}
	added := f.Tenants - b.Tenants
	w("| | baseline | this run | added | per tenant added |\n|---|---|---|---|---|\n")
	per := func(d float64, prec int) string {
		if added <= 0 {
			return "—"
		}
		return fmt.Sprintf("%+.*f", prec, d/float64(added))
	}
	for _, c := range []struct {
		name string
		b, f int
	}{{"tenants", b.Tenants, f.Tenants}, {"workers", b.Workers, f.Workers}, {"cards", b.Cards, f.Cards}} {
		w("| %s | %d | %d | %+d | |\n", c.name, c.b, c.f, c.f-c.b)
	}
	du := f.Up - b.Up
	w("| up | %s | %s | %+.1f s | %s s |\n", b.Up.Round(100*time.Millisecond), f.Up.Round(100*time.Millisecond),
		du.Seconds(), per(du.Seconds(), 1))
	const gib = 1 << 30
	dm, dd := float64(f.MemoryPeakBytes-b.MemoryPeakBytes)/gib, float64(f.DiskBytes-b.DiskBytes)/gib
	w("| containers' memory peak | %s | %s | %+.2f GiB | %s GiB |\n", human(b.MemoryPeakBytes), human(f.MemoryPeakBytes), dm, per(dm, 2))
	w("| disk | %s | %s | %+.2f GiB | %s GiB |\n", human(b.DiskBytes), human(f.DiskBytes), dd, per(dd, 2))
	w("\n`up` is %.2f× the baseline's.\n", f.Up.Seconds()/b.Up.Seconds())
}
