package report

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

func state(moment string, at time.Time, cards ...results.Card) results.TenantState {
	return results.TenantState{Name: "t", Moment: moment, At: at, Nodes: []results.Node{{Name: "n", Cards: cards}}}
}

func card(uuid string, holders ...results.Slice) results.Card {
	return results.Card{UUID: uuid, Type: "NVIDIA-L4", MemoryMB: 24576, Cores: 100, Holders: holders}
}

func slice(pod string, mb, cores int) results.Slice {
	return results.Slice{Namespace: "ns", Pod: pod, MemoryMB: mb, Cores: cores}
}

// Each card is drawn from the sample where it held the most, whichever
// scenario sampled it: the end of the run no longer hides a busy card.
func TestBusiestPicksEachCardsPeak(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		states []results.TenantState
		want   map[string]string // card → moment it is drawn from
	}{
		{"each card at its own peak",
			[]results.TenantState{
				state("TC-09", t0.Add(time.Second), card("a", slice("p", 1000, 10)), card("b", slice("p", 1000, 10))),
				state("TC-14", t0.Add(2*time.Second), card("a", slice("q", 10000, 50)), card("b")),
				state("end of run", t0.Add(3*time.Second), card("a"), card("b")),
			},
			map[string]string{"a": "TC-14", "b": "TC-09"}},
		{"never used: the earliest sample",
			[]results.TenantState{state("TC-05", t0, card("a")), state("end of run", t0.Add(time.Second), card("a"))},
			map[string]string{"a": "TC-05"}},
		{"samples out of order are read in time order",
			[]results.TenantState{
				state("end of run", t0.Add(time.Minute), card("a")),
				state("TC-16", t0.Add(time.Second), card("a", slice("whole", 24576, 100))),
			},
			map[string]string{"a": "TC-16"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tv := newTenants(tt.states, t0)
			if len(tv) != 1 || len(tv[0].Busiest) != 1 {
				t.Fatalf("tenants %+v, want one tenant with one busiest node", tv)
			}
			got := map[string]string{}
			for _, c := range tv[0].Busiest[0].Cards {
				if !c.Busiest {
					t.Errorf("card %s not marked busiest", c.UUID)
				}
				got[c.UUID] = c.Moment
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("card %s drawn from %q, want %q", k, got[k], v)
				}
			}
		})
	}
	if tv := newTenants([]results.TenantState{state("end of run", t0, card("a"))}, t0); tv[0].Busiest != nil {
		t.Error("a tenant sampled once got a busiest picture too (the sample itself is it)")
	}
}

func TestHTMLShowsBusiestCardsAndFailuresFirst(t *testing.T) {
	run := sampleRun(t)
	page := readFile(t, filepath.Join(writeSample(t, run), HTMLFile))
	// The sample samples tenant-a twice (TC-05's 60000 MB, then after TC-13
	// freed a slice) and tenant-b once: one busiest picture, tenant-a's A100
	// at TC-05.
	if n := strings.Count(page, `data-busiest-card="`); n != 1 {
		t.Errorf("%d busiest card pictures, want 1 (tenant-a's A100)", n)
	}
	busy := page[strings.Index(page, "data-busiest>"):strings.Index(page, "all-samples")]
	if !strings.Contains(busy, "60000 / 81920 MB") || !strings.Contains(busy, "TC-05: the three") {
		t.Errorf("busiest picture is not TC-05's 60000 MB:\n%s", busy)
	}
	// A failed run opens on its failures, above the card pictures.
	f, g := strings.Index(page, `id="failures"`), strings.Index(page, `id="gpus"`)
	if f < 0 || f > g {
		t.Fatalf("failures section at %d, cards at %d: want failures first", f, g)
	}
	for _, c := range run.Cases {
		if c.Status == results.Failed && !strings.Contains(page, `data-failure="`+c.ID+`"`) {
			t.Errorf("failed %s not listed above the pictures", c.ID)
		}
	}
	passed := *run
	passed.Cases = nil
	for _, c := range run.Cases {
		if c.Status != results.Failed {
			passed.Cases = append(passed.Cases, c)
		}
	}
	if page := readFile(t, filepath.Join(writeSample(t, &passed), HTMLFile)); strings.Contains(page, `id="failures"`) {
		t.Error("a run without failures has a failures section")
	}
}

func TestSummaryCallsOutSkippedCoreCases(t *testing.T) {
	run := &results.Run{Schema: results.SchemaVersion, Cases: []results.Case{
		{ID: "TC-03", Title: "three slices", Status: results.Skipped, Core: true, Message: "skipped: the lab spec has no card"},
		{ID: "TC-09", Title: "two cards", Status: results.Skipped, Message: "skipped: no pair"},
	}}
	md := summaryMarkdown(run)
	if !strings.Contains(md, "> Core cases skipped: TC-03.") || !strings.Contains(md, "--fail-on-skip") {
		t.Errorf("summary does not call out the skipped core case:\n%s", md)
	}
	run.Cases[0].Core = false
	if md := summaryMarkdown(run); strings.Contains(md, "Core cases skipped") {
		t.Errorf("summary calls out a non-core skip:\n%s", md)
	}
}

func TestClassNameSaysTheTenantOnce(t *testing.T) {
	tests := []struct {
		tenants  []string
		scenario string
		want     string
	}{
		{[]string{"tenant-a"}, "tenant-a/worker card 0", "tenant-a/worker card 0"},
		{[]string{"mixed"}, "mixed/t4 cards 0,1 + mixed/l40s card 0", "mixed/t4 cards 0,1 + mixed/l40s card 0"},
		{[]string{"tenant-a"}, "card-sharing", "tenant-a/card-sharing"},
		{[]string{"tenant-a", "tenant-b"}, "", "tenant-a+tenant-b"},
		{nil, "", "lab"},
	}
	for _, tt := range tests {
		if got := className(&results.Case{Tenants: tt.tenants, Scenario: tt.scenario}); got != tt.want {
			t.Errorf("className(%v, %q) = %q, want %q", tt.tenants, tt.scenario, got, tt.want)
		}
	}
}
