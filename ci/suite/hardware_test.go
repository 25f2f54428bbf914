package suite

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func mustLab(t *testing.T, y string) *lab.Lab {
	t.Helper()
	l, err := lab.Parse([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func str(p *placement) string {
	if p == nil {
		return ""
	}
	return p.String()
}

func TestPickHardwareDefaultLab(t *testing.T) {
	hw := pickHardware(lab.Default())
	got := map[string]string{"share": str(hw.Share), "pair": str(hw.Pair), "type": str(hw.Type), "burst": str(hw.Burst), "bind": str(hw.Bind)}
	want := map[string]string{
		"share": "tenant-a/worker card 0", // the seed's sharing scenario stays on tenant-a's A100
		"pair":  "tenant-b/worker cards 0,1",
		"type":  "tenant-a/worker card 0", // off the burst's worker: HAMi's node lock is per node
		"burst": "tenant-b/worker card 0", // one L4 holds ten slices (split count 10)
		"bind":  "tenant-a/worker card 0", // off the burst's worker, as TC-12
	}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("%s = %q, want %q", k, got[k], want[k])
		}
	}
	if hw.LackingType != "NVIDIA-L4" {
		t.Errorf("LackingType = %q, want tenant-b's L4 type (another tenant's first)", hw.LackingType)
	}
	if hw.Burst == nil || !hw.Burst.WholeNode || strings.Join(hw.Burst.keys(), " ") != "tenant-b/worker#0 tenant-b/worker#1" {
		t.Errorf("burst %v holds %v, want both of tenant-b's cards (its node lock is the worker's)", hw.Burst, hw.Burst.keys())
	}
	if hw.Count == nil || hw.Count.String() != "tenant-b/worker" || hw.Nodes != nil {
		t.Errorf("Count = %v, Nodes = %v; want tenant-b/worker and none (no tenant has two workers)", hw.Count, hw.Nodes)
	}
}

func TestPickHardware(t *testing.T) {
	tests := []struct {
		name                    string
		yaml                    string
		share, pair, typ, burst string // "" = none
		nodes                   string // the TC-17 workers, "" = none
		bind                    string // TC-19's card
	}{
		{"one small card runs the sharing scenario on it", `tenants: [{name: a, workers: [{name: w, gpus: [{model: L4, count: 1}]}]}]`,
			"a/w card 0", "", "a/w card 0", "a/w card 0", "", "a/w card 0"},
		{"8 × H100 on one worker: the other scenarios on their own cards, the burst holding the worker",
			`tenants: [{name: a, workers: [{name: w, gpus: [{model: H100-80GB, count: 8}]}]}]`,
			"a/w card 0", "a/w cards 1,2", "a/w card 3", "a/w card 3", "", "a/w card 4"},
		{"the biggest card shares, the first of equals", `tenants: [{name: a, workers: [{name: w, gpus: [{model: T4, count: 1}, {model: L40S, ` +
			`count: 2}]}]}]`,
			"a/w card 1", "a/w cards 0,2", "a/w card 0", "a/w card 0", "", "a/w card 2"},
		{"split count 4: TC-14 takes three cards", `{hami: {splitCount: 4}, tenants: [{name: a, workers: [{name: w, gpus: [{model: T4, ` +
			`count: 4}]}]}]}`,
			"a/w card 0", "a/w cards 1,2", "a/w card 3", "a/w cards 1,2,3", "", "a/w card 1"},
		{"burst prefers a free worker", `tenants: [{name: a, workers: [{name: w, gpus: [{model: A100-80GB, count: 1}]}, {name: x, gpus: ` +
			`[{model: L4, count: 2}]}, {name: z, gpus: [{model: T4, count: 1}]}]}]`,
			"a/w card 0", "a/x cards 0,1", "a/x card 0", "a/z card 0", "a/w card 0 + a/x cards 0,1", "a/x card 1"},
		{"two workers of different models in one tenant", `tenants: [{name: a, workers: [{name: t4, gpus: [{model: T4, count: 2}]}, {name: ` +
			`l40s, gpus: [{model: L40S, count: 1}]}]}]`,
			"a/l40s card 0", "a/t4 cards 0,1", "a/l40s card 0", "a/t4 card 0", "a/t4 cards 0,1 + a/l40s card 0", "a/l40s card 0"},
		{"split count 1: no node policy (two pods on one node need two grants)", `{hami: {splitCount: 1}, tenants: [{name: a, workers: [{name: ` +
			`w, gpus: [{model: T4, count: 1}]}, {name: x, gpus: [{model: T4, count: 1}]}]}]}`,
			"a/w card 0", "", "a/x card 0", "", "", "a/x card 0"},
		{"a 3 MB custom card is too small to share", `tenants: [{name: a, workers: [{name: w, gpus: [{model: custom, count: 1, memoryMB: 3, ` +
			`type: NVIDIA-Tiny}]}]}]`,
			"", "", "a/w card 0", "", "", "a/w card 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hw := pickHardware(mustLab(t, tt.yaml))
			var nodes []string
			for _, p := range hw.Nodes {
				nodes = append(nodes, p.String())
			}
			got := []string{str(hw.Share), str(hw.Pair), str(hw.Type), str(hw.Burst), strings.Join(nodes, " + "), str(hw.Bind)}
			want := []string{tt.share, tt.pair, tt.typ, tt.burst, tt.nodes, tt.bind}
			if strings.Join(got, " | ") != strings.Join(want, " | ") {
				t.Errorf("share | pair | type | burst | nodes | bind =\n  %q\nwant\n  %q", got, want)
			}
			if hw.Type != nil && typeMatches(hw.Type.Cards, hw.LackingType) {
				t.Errorf("LackingType %q matches a card of %s", hw.LackingType, hw.Type)
			}
		})
	}
}

func TestShareSizes(t *testing.T) {
	tests := []struct {
		cardMB             int
		slice, over, small int
	}{
		{81920, 20000, 90000, 1000}, // the seed's numbers, exactly
		{16384, 4000, 18000, 1000},  // T4
		{49152, 12000, 54000, 1000}, // L40S
		{24576, 6000, 27000, 1000},  // L4
		{144384, 36000, 159000, 1000},
		{2000, 500, 2000 + 200, 200}, // too small to round: 2200 rounds to 2000, so card + 10%
		{4, 1, 5, 1},
	}
	for _, tt := range tests {
		s, ok := shareSizesFor(tt.cardMB)
		if !ok || s.SliceMB != tt.slice || s.OversizedMB != tt.over || s.SmallMB != tt.small {
			t.Errorf("shareSizesFor(%d) = %+v %v, want slice %d, oversized %d, small %d", tt.cardMB, s, ok, tt.slice, tt.over, tt.small)
			continue
		}
		// What each check means, on any card: three slices fit, a fourth
		// still fits by memory, the oversized pod does not fit at all.
		if 4*s.SliceMB > tt.cardMB || s.OversizedMB <= tt.cardMB || 3*sliceCores > 100 || 4*sliceCores <= 100 {
			t.Errorf("card %d MB: sizes %+v do not mean what the seed's mean", tt.cardMB, s)
		}
	}
	if _, ok := shareSizesFor(3); ok {
		t.Error("a 3 MB card was given sizes; a quarter of it is no MB")
	}
}

func TestPlanDefaultLab(t *testing.T) {
	r := &runner{cfg: Config{Lab: lab.Default()}}
	tasks := r.plan()
	seen := map[string]string{}
	for _, tk := range tasks {
		for _, c := range tk.cases {
			if c.skip != "" && c.ID != "TC-17" {
				t.Errorf("%s skipped on the default lab: %s", c.ID, c.skip)
			}
			seen[c.ID] = tk.scenario
		}
	}
	if len(seen) != len(catalog) {
		t.Fatalf("planned %d cases, want %d", len(seen), len(catalog))
	}
	// Cases sharing tenant-a's A100 run in this order, in one scenario.
	var order []string
	for _, tk := range tasks {
		if tk.scenario == "tenant-a/worker card 0" {
			for _, c := range tk.cases {
				order = append(order, c.ID)
			}
			if strings.Join(tk.locks, " ") != "tenant-a/worker#0" {
				t.Errorf("sharing scenario locks %v", tk.locks)
			}
		}
	}
	if got := strings.Join(order, " "); got != "TC-03 TC-05 TC-06 TC-07 TC-13 TC-16 TC-18 TC-12 TC-19" {
		t.Errorf("tenant-a scenario = %s", got)
	}
	// TC-14 holds both of tenant-b's cards, as the pair does: one scenario.
	if seen["TC-14"] != "tenant-b/worker cards 0,1" || seen["TC-12"] != "tenant-a/worker card 0" ||
		seen["TC-09"] != "tenant-b/worker cards 0,1" || seen["TC-01"] != "" || seen["TC-10"] != "" {
		t.Errorf("placement: %v", seen)
	}
}

func TestPlanSkipsOnlyWhatTheInventoryForbids(t *testing.T) {
	tests := []struct {
		name, yaml string
		skipped    string // IDs, sorted
		reasons    map[string]string
	}{
		{"one L4", `tenants: [{name: a, workers: [{name: w, gpus: [{model: L4, count: 1}]}]}]`,
			"TC-09 TC-11 TC-15 TC-17", map[string]string{
				"TC-09": "the lab spec has no worker with two or more cards (it has a/w: 1× L4 (24576 MB))",
				"TC-17": "the lab spec has no tenant with two GPU workers",
			}},
		{"split count 3", `{hami: {splitCount: 3}, tenants: [{name: a, workers: [{name: w, gpus: [{model: H100-80GB, count: 8}]}]}, {name: b, ` +
			`workers: [{name: w, gpus: [{model: T4, count: 1}]}]}]}`,
			"TC-07 TC-17", map[string]string{"TC-07": "the lab's hami.splitCount is 3; the case needs 4 pods on one card (set " +
				"hami.splitCount ≥ 4)"}},
		{"four tenants, every shape", `tenants: [{name: a, workers: [{name: w, gpus: [{model: H100-80GB, count: 8}]}]}, {name: b, workers: ` +
			`[{name: t4, gpus: [{model: T4, count: 1}]}, {name: l40s, gpus: [{model: L40S, count: 1}]}]}, {name: c, workers: [{name: w, gpus: ` +
			`[{model: T4, count: 1}]}]}, {name: d, workers: [{name: w, gpus: [{model: L4, count: 2}]}]}]`,
			"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{cfg: Config{Lab: mustLab(t, tt.yaml)}}
			var skipped []string
			for _, tk := range r.plan() {
				for _, c := range tk.cases {
					if c.skip != "" {
						skipped = append(skipped, c.ID)
						if want, ok := tt.reasons[c.ID]; ok && !strings.Contains(c.skip, want) {
							t.Errorf("%s skip = %q, want it to contain %q", c.ID, c.skip, want)
						}
					}
				}
			}
			sort.Strings(skipped)
			if got := strings.Join(skipped, " "); got != tt.skipped {
				t.Errorf("skipped %q, want %q", got, tt.skipped)
			}
		})
	}
}

func TestFailOnSkipFailsCoreCasesOnly(t *testing.T) {
	l := mustLab(t, `{hami: {splitCount: 3}, tenants: [{name: tenant-a, workers: [{name: worker, gpus: [{model: L4, count: 1}]}]}]}`)
	for _, failOnSkip := range []bool{false, true} {
		r, _ := fakeRunner(nil)
		r.cfg.Lab, r.cfg.FailOnSkip = l, failOnSkip
		var tasks []*task
		for _, tk := range r.plan() {
			for _, c := range tk.cases {
				if c.skip != "" {
					tasks = append(tasks, &task{cases: []*caseRun{c}})
				}
			}
		}
		run := r.execute(context.Background(), tasks)
		got := map[string]string{}
		for _, c := range run.Cases {
			got[c.ID] = string(c.Status)
			if c.ID == "TC-07" && c.Core != true {
				t.Errorf("TC-07 not marked core in the results")
			}
		}
		wantCore := "skipped"
		if failOnSkip {
			wantCore = "failed"
		}
		// TC-07 is one of the seed's eight (core); TC-09 is not.
		if got["TC-07"] != wantCore || got["TC-09"] != "skipped" {
			t.Errorf("FailOnSkip=%v: TC-07 %s, TC-09 %s; want %s and skipped", failOnSkip, got["TC-07"], got["TC-09"], wantCore)
		}
	}
}
