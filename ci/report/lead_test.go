package report

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

func state(tenant, moment string, at time.Time, cards ...results.Card) results.TenantState {
	return results.TenantState{Name: tenant, Moment: moment, At: at, Nodes: []results.Node{{Name: "n", Cards: cards}}}
}

func card(uuid string, holders ...results.Slice) results.Card {
	return results.Card{UUID: uuid, Type: "NVIDIA-A100-SXM4-80GB", MemoryMB: 81920, Cores: 100, Holders: holders}
}

func slice(pod string, mb, cores int) results.Slice {
	return results.Slice{Namespace: "ns", Pod: pod, MemoryMB: mb, Cores: cores, Phase: "Running"}
}

func starting(s results.Slice) results.Slice {
	s.Phase, s.State = "Pending", results.SliceStarting
	return s
}

// Each tenant leads with the moment the most settled pods shared one card,
// whatever the other samples hold; its other samples follow in time order.
func TestEachTenantLeadsWithItsSharingMoment(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	three := card("a100", slice("tc03-1", 20000, 30), slice("tc03-2", 20000, 30), slice("tc03-3", 20000, 30))
	tests := []struct {
		name       string
		states     []results.TenantState
		wantLead   string // moment; "" for none
		wantOthers []string
	}{
		{"the seed: three 20000 MB + 30% pods, not the whole-card pod", []results.TenantState{
			state("t", "TC-05", at(1), three),
			state("t", "TC-16", at(2), card("a100", slice("tc16-whole", 81920, 100))),
			state("t", "end of run", at(3), card("a100")),
		}, "TC-05", []string{"TC-16", "end of run"}},
		{"more pods on one card beat a fuller card", []results.TenantState{
			state("t", "TC-11", at(1), card("l4", slice("a", 20000, 50), slice("b", 20000, 40))),
			state("t", "TC-14", at(2), card("l4", slice("1", 1000, 5), slice("2", 1000, 5), slice("3", 1000, 5))),
		}, "TC-14", []string{"TC-11"}},
		{"equal sharing: the fuller card", []results.TenantState{
			state("t", "small", at(1), card("l4", slice("a", 1000, 5), slice("b", 1000, 5))),
			state("t", "big", at(2), card("l4", slice("a", 20000, 50), slice("b", 20000, 40))),
		}, "big", []string{"small"}},
		{"equal sharing and use: the earlier", []results.TenantState{
			state("t", "second", at(2), card("l4", slice("a", 1000, 5), slice("b", 1000, 5))),
			state("t", "first", at(1), card("l4", slice("c", 1000, 5), slice("d", 1000, 5))),
		}, "first", []string{"second"}},
		{"a 2-GPU pod on two cards is not sharing", []results.TenantState{
			state("t", "TC-09", at(1), card("l4-0", slice("two", 1000, 10)), card("l4-1", slice("two", 1000, 10))),
		}, "", []string{"TC-09"}},
		{"pods not settled yet do not count as sharing", []results.TenantState{
			state("t", "racing", at(1), card("a100", slice("a", 20000, 30), starting(slice("b", 20000, 30)), starting(slice("c", 20000, 30)))),
			state("t", "settled", at(2), card("a100", slice("a", 1000, 10), slice("b", 1000, 10))),
		}, "settled", []string{"racing"}},
		{"only one sample, and it shares", []results.TenantState{state("t", "TC-05", at(1), three)}, "TC-05", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tv := newTenants(tt.states, t0)
			if len(tv) != 1 {
				t.Fatalf("%d tenants, want 1", len(tv))
			}
			lead := ""
			if tv[0].Sharing != nil {
				lead = tv[0].Sharing.Moment
			}
			var others []string
			for _, s := range tv[0].Others {
				others = append(others, s.Moment)
			}
			if lead != tt.wantLead || !slices.Equal(others, tt.wantOthers) {
				t.Errorf("lead %q, others %v; want %q, %v", lead, others, tt.wantLead, tt.wantOthers)
			}
		})
	}
}

// Tenants keep the order of the run's samples (the suite puts them in the
// lab's order), not the order their samples were taken in.
func TestTenantsKeepTheRunsOrder(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	tv := newTenants([]results.TenantState{
		state("tenant-a", "TC-05", t0.Add(2*time.Second), card("a")),
		state("tenant-b", "TC-09", t0.Add(time.Second), card("b")),
	}, t0)
	if len(tv) != 2 || tv[0].Name != "tenant-a" || tv[1].Name != "tenant-b" {
		t.Errorf("tenants %+v, want tenant-a then tenant-b", tv)
	}
}

// The page opens on the failures, then each tenant's sharing moment.
func TestHTMLLeadsWithSharingAndFailuresFirst(t *testing.T) {
	run := sampleRun(t)
	page := readFile(t, filepath.Join(writeSample(t, run), HTMLFile))
	// tenant-a leads with TC-05's three pods (60000 MB), tenant-b with
	// TC-11's card shared by tc09-two-gpus and both binpack pods.
	if n := strings.Count(page, `data-sharing>`); n != 2 {
		t.Errorf("%d sharing pictures, want one per tenant", n)
	}
	a := page[strings.Index(page, `data-tenant="tenant-a"`):strings.Index(page, `data-tenant="tenant-b"`)]
	lead := a[strings.Index(a, "data-sharing>"):strings.Index(a, "all-samples")]
	if !strings.Contains(lead, "3 pods share one card") || !strings.Contains(lead, "60000 / 81920 MB") ||
		!strings.Contains(lead, "TC-05: the three") {
		t.Errorf("tenant-a does not lead with TC-05's three pods:\n%s", lead)
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

// What a sample could not draw as settled is said on the page: pods still
// starting are marked, pods being deleted are named.
func TestHTMLMarksUnsettledAndDeletingPods(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	st := state("tenant-a", "TC-16: a whole-card pod holds a100", t0, card("a100", starting(slice("tc16-whole-1", 81920, 100))))
	st.Deleting = []string{"gpulab-tc12-x/tc12-own"}
	page, err := renderHTML(&results.Run{Tenants: []results.TenantState{st}})
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{`data-state="bound, starting"`, `<span class="state">bound, starting</span>`, "1 not settled yet",
		`class="seg p0 unsettled"`, "left out, being deleted: <span class=\"ns\">gpulab-tc12-x/tc12-own</span>", "data-no-sharing"} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(html, `<td class="ns">Pending</td>`) {
		t.Error("a bound pod still starting is drawn as plain Pending")
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
