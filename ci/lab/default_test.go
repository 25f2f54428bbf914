package lab

import (
	"strings"
	"testing"
)

// TestDefaultIsSeedLab: tenant-a has one 81920 MB A100, tenant-b two 24576 MB L4.
func TestDefaultIsSeedLab(t *testing.T) {
	l := Default()
	want := map[string][]Card{
		"tenant-a": {{Model: "A100-80GB", MemoryMB: 81920, Type: "NVIDIA-A100-SXM4-80GB", Index: 0}},
		"tenant-b": {{Model: "L4", MemoryMB: 24576, Type: "NVIDIA-L4", Index: 0}, {Model: "L4", MemoryMB: 24576, Type: "NVIDIA-L4", Index: 1}},
	}
	if got := l.TenantNames(); len(got) != 2 || got[0] != "tenant-a" || got[1] != "tenant-b" {
		t.Fatalf("tenants %v", got)
	}
	for name, cards := range want {
		tn := l.Tenant(name)
		if tn == nil || len(tn.Workers) != 1 {
			t.Fatalf("%s: %+v", name, tn)
		}
		got := tn.Workers[0].Cards()
		if len(got) != len(cards) {
			t.Fatalf("%s: cards %+v", name, got)
		}
		for i := range cards {
			if got[i] != cards[i] {
				t.Errorf("%s card %d: %+v, want %+v", name, i, got[i], cards[i])
			}
		}
	}
	if l.HAMi.SplitCount != 10 || l.NodeLockTimeoutDuration().String() != "5m0s" {
		t.Errorf("hami %+v", l.HAMi)
	}
}

func TestCatalog(t *testing.T) {
	for _, name := range []string{"A100-40GB", "A100-80GB", "H100-80GB", "H200", "L4", "L40S", "T4"} {
		m, ok := Catalog[name]
		if !ok {
			t.Errorf("catalog lacks %s", name)
			continue
		}
		if m.Name != name || m.MemoryMB <= 0 || !strings.Contains(m.Type, "NVIDIA") || strings.ContainsAny(m.Type, ",:;") {
			t.Errorf("%s: %+v", name, m)
		}
	}
}

// TestValidLabs: shapes that must be accepted, including the node-name bound.
func TestValidLabs(t *testing.T) {
	for name, src := range map[string]string{
		"custom card": one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: custom, count: 1, " +
			"memoryMB: 32768, type: NVIDIA-Tesla-V100}]}\n"),
		"catalog override":  one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 1, memoryMB: 23034}]}\n"),
		"63-character node": "name: " + strings.Repeat("l", 30) + "\ntenants:\n  - name: " + strings.Repeat("t", 30) + "\n" + okWorker,
		"json":              `{"tenants":[{"name":"a","workers":[{"name":"w","gpus":[{"model":"T4","count":8}]}]}]}`,
		"eight cards":       one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 5}, {model: T4, count: 3}]}\n"),
	} {
		if _, err := Parse([]byte(src)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	l, _ := Parse([]byte(one("  - name: a\n    workers:\n      - {name: w, gpus: [{model: L4, count: 1, memoryMB: 23034}]}\n")))
	if c := l.Tenants[0].Workers[0].Cards()[0]; c.MemoryMB != 23034 || c.Type != "NVIDIA-L4" {
		t.Errorf("override: %+v", c)
	}
}
