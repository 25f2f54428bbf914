package suite

import (
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

func TestPickHardwareDefaultLab(t *testing.T) {
	hw := pickHardware(lab.Default())
	check := func(name string, s *site, want string) {
		t.Helper()
		if s == nil || s.String() != want {
			t.Errorf("%s = %v, want %s", name, s, want)
		}
	}
	check("BigCard", hw.BigCard, "tenant-a/worker")
	check("MultiCard", hw.MultiCard, "tenant-b/worker")
	check("TypeSite", hw.TypeSite, "tenant-b/worker")
	check("Burst", hw.Burst, "tenant-b/worker")
	if hw.LackingType != "NVIDIA-A100-SXM4-80GB" {
		t.Errorf("LackingType = %q, want tenant-a's A100 type", hw.LackingType)
	}
}

func TestPickHardware(t *testing.T) {
	tests := []struct {
		name                        string
		yaml                        string
		big, multi, typeSite, burst string // "" = none
	}{
		{"only small cards", `tenants: [{name: a, workers: [{name: w, gpus: [{model: L4, count: 1}]}]}]`, "", "", "a/w", "a/w"},
		{"big card but two of them", `tenants: [{name: a, workers: [{name: w, gpus: [{model: H100-80GB, count: 2}]}]}]`, "", "a/w", "a/w", "a/w"},
		{"A100-40GB is too small for three 20000 MB slices and a fourth", `tenants: [{name: a, workers: [{name: w, gpus: [{model: A100-40GB, count: 1}]}]}]`, "", "", "a/w", "a/w"},
		{"burst prefers a free worker", `tenants: [{name: a, workers: [{name: w, gpus: [{model: A100-80GB, count: 1}]}, {name: x, gpus: [{model: L4, count: 2}]}, {name: z, gpus: [{model: T4, count: 1}]}]}]`, "a/w", "a/x", "a/x", "a/z"},
		{"multi-card prefers another tenant than the big card", `tenants: [{name: a, workers: [{name: w, gpus: [{model: H200, count: 1}]}, {name: x, gpus: [{model: L4, count: 2}]}]}, {name: b, workers: [{name: w, gpus: [{model: T4, count: 2}]}]}]`, "a/w", "b/w", "b/w", "a/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hw := pickHardware(mustLab(t, tt.yaml))
			str := func(s *site) string {
				if s == nil {
					return ""
				}
				return s.String()
			}
			if str(hw.BigCard) != tt.big || str(hw.MultiCard) != tt.multi || str(hw.TypeSite) != tt.typeSite || str(hw.Burst) != tt.burst {
				t.Errorf("got big=%q multi=%q type=%q burst=%q, want %q %q %q %q",
					str(hw.BigCard), str(hw.MultiCard), str(hw.TypeSite), str(hw.Burst), tt.big, tt.multi, tt.typeSite, tt.burst)
			}
			if hw.TypeSite != nil && typeMatches(hw.TypeSite.Cards, hw.LackingType) {
				t.Errorf("LackingType %q matches a card of %s", hw.LackingType, hw.TypeSite)
			}
		})
	}
}

func TestPlanDefaultLabRunsEverything(t *testing.T) {
	r := &runner{cfg: Config{Lab: lab.Default()}}
	tasks := r.plan()
	seen := map[string]string{}
	for _, tk := range tasks {
		for _, c := range tk.cases {
			if c.skip != "" {
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
		if tk.scenario == "tenant-a worker cards" {
			for _, c := range tk.cases {
				order = append(order, c.ID)
			}
		}
	}
	if got := strings.Join(order, " "); got != "TC-03 TC-05 TC-06 TC-07 TC-13 TC-16" {
		t.Errorf("tenant-a scenario = %s", got)
	}
	if seen["TC-14"] != "tenant-b worker cards" || seen["TC-12"] != "tenant-b worker cards" || seen["TC-01"] != "" {
		t.Errorf("placement: %v", seen)
	}
}

func TestPlanSkipsWithReason(t *testing.T) {
	r := &runner{cfg: Config{Lab: mustLab(t, `tenants: [{name: a, workers: [{name: w, gpus: [{model: L4, count: 1}]}]}]`)}}
	skips := map[string]string{}
	for _, tk := range r.plan() {
		for _, c := range tk.cases {
			if c.skip != "" {
				skips[c.ID] = c.skip
			}
		}
	}
	for _, id := range []string{"TC-03", "TC-05", "TC-06", "TC-07", "TC-13", "TC-16", "TC-09", "TC-10", "TC-11", "TC-15"} {
		if skips[id] == "" {
			t.Errorf("%s not skipped", id)
		}
	}
	if want := "the lab spec has no worker with exactly one card of at least 80000 MB (it has a/w: 1× L4 (24576 MB))"; !strings.Contains(skips["TC-03"], want) {
		t.Errorf("TC-03 skip = %q, want it to contain %q", skips["TC-03"], want)
	}
	for _, id := range []string{"TC-12", "TC-14", "TC-01", "TC-02", "TC-04", "TC-08"} {
		if skips[id] != "" {
			t.Errorf("%s skipped: %s", id, skips[id])
		}
	}
}
