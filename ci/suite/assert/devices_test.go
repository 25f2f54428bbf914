package assert

import (
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func dev(uuid string, mem, cores int) gpus.ContainerDevice {
	return gpus.ContainerDevice{UUID: uuid, Type: "NVIDIA", MemoryMB: mem, Cores: cores}
}

func TestAllocated(t *testing.T) {
	tests := []struct {
		name    string
		anno    map[string]string
		want    int
		wantErr string
	}{
		{"one card", map[string]string{gpus.AnnoDevicesAllocated: "GPU-a100-0,NVIDIA,20000,30:;"}, 1, ""},
		{"two cards", map[string]string{gpus.AnnoDevicesAllocated: "GPU-l4-1,NVIDIA,1000,10:GPU-l4-0,NVIDIA,1000,10:;"}, 2, ""},
		{"missing", nil, 0, "has no hami.io/vgpu-devices-allocated annotation"},
		{"erased", map[string]string{gpus.AnnoDevicesAllocated: ";"}, 0, "grants no device"},
		{"garbage", map[string]string{gpus.AnnoDevicesAllocated: "x"}, 0, "must end with ';'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Allocated("ns/p", tt.anno)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(got) != tt.want {
				t.Fatalf("got %v, %v", got, err)
			}
		})
	}
}

func TestSameCard(t *testing.T) {
	shared := map[string][]gpus.ContainerDevice{
		"p1": {dev("GPU-A", 20000, 30)}, "p2": {dev("GPU-A", 20000, 30)}, "p3": {dev("GPU-A", 20000, 30)},
	}
	uuid, err := SameCard(shared)
	if err != nil || uuid != "GPU-A" {
		t.Fatalf("SameCard = %q, %v", uuid, err)
	}
	if err := CardTotals(uuid, shared, 60000, 90); err != nil {
		t.Fatal(err)
	}
	if err := CardTotals(uuid, shared, 60000, 100); err == nil ||
		!strings.Contains(err.Error(), "holds 60000 MB and 90% cores, want 60000 MB and 100%") {
		t.Fatalf("CardTotals err = %v", err)
	}
	spread := map[string][]gpus.ContainerDevice{"p1": {dev("GPU-A", 1, 1)}, "p2": {dev("GPU-B", 1, 1)}}
	if _, err := SameCard(spread); err == nil ||
		!strings.Contains(err.Error(), "spread over 2 cards, want one shared card: p1 on GPU-A; p2 on GPU-B") {
		t.Fatalf("SameCard spread err = %v", err)
	}
	multi := map[string][]gpus.ContainerDevice{"p1": {dev("GPU-A", 1, 1), dev("GPU-B", 1, 1)}}
	if _, err := SameCard(multi); err == nil || !strings.Contains(err.Error(), "holds 2 devices, want 1") {
		t.Fatalf("SameCard multi err = %v", err)
	}
	if _, err := SameCard(nil); err == nil {
		t.Fatal("SameCard(nil) passed")
	}
}

func TestDistinctCards(t *testing.T) {
	if err := DistinctCards("p", []gpus.ContainerDevice{dev("A", 1, 1), dev("B", 1, 1)}, 2); err != nil {
		t.Fatal(err)
	}
	if err := DistinctCards("p", []gpus.ContainerDevice{dev("A", 1, 1), dev("A", 1, 1)}, 2); err == nil ||
		!strings.Contains(err.Error(), "2 devices on 1 distinct cards (A, A), want 2") {
		t.Fatalf("err = %v", err)
	}
	if err := DistinctCards("p", []gpus.ContainerDevice{dev("A", 1, 1)}, 2); err == nil {
		t.Fatal("one device passed as two")
	}
}

func TestOnNodeAndWholeCard(t *testing.T) {
	reg := []gpus.DeviceInfo{{ID: "GPU-A", Devmem: 81920, Devcore: 100}}
	if err := OnNode("p", "n", []gpus.ContainerDevice{dev("GPU-A", 1, 1)}, reg); err != nil {
		t.Fatal(err)
	}
	if err := OnNode("p", "n", []gpus.ContainerDevice{dev("GPU-X", 1, 1)}, reg); err == nil ||
		!strings.Contains(err.Error(), "GPU-X, which is not registered on node n") {
		t.Fatalf("err = %v", err)
	}
	if err := WholeCard("p", []gpus.ContainerDevice{dev("GPU-A", 81920, 100)}, reg[0]); err != nil {
		t.Fatal(err)
	}
	// Without the webhook's default gpucores: 100, HAMi grants 0 cores (HAMI-FACTS.md §3f).
	if err := WholeCard("p", []gpus.ContainerDevice{dev("GPU-A", 81920, 0)}, reg[0]); err == nil ||
		!strings.Contains(err.Error(), "81920 MB and 0% cores, want the whole card") {
		t.Fatalf("err = %v", err)
	}
}

func TestRegister(t *testing.T) {
	l := lab.Default()
	w := l.Tenants[1].Workers[0]
	good := gpus.Devices(l, "tenant-b", w)
	if err := Register("n", w.Cards(), good); err != nil {
		t.Fatal(err)
	}
	mut := func(f func(d []gpus.DeviceInfo) []gpus.DeviceInfo) []gpus.DeviceInfo {
		c := append([]gpus.DeviceInfo(nil), good...)
		return f(c)
	}
	tests := []struct {
		name string
		got  []gpus.DeviceInfo
		want string
	}{
		{"missing card", good[:1], "registers 1 GPUs, the lab spec gives it 2"},
		{"memory", mut(func(d []gpus.DeviceInfo) []gpus.DeviceInfo { d[1].Devmem = 23034; return d }),
			"registers 23034 MB, the spec says L4 has 24576 MB"},
		{"type", mut(func(d []gpus.DeviceInfo) []gpus.DeviceInfo { d[0].Type = "L4"; return d }),
			`registers type "L4", the spec says "NVIDIA-L4"`},
		{"unhealthy", mut(func(d []gpus.DeviceInfo) []gpus.DeviceInfo { d[0].Health = false; return d }), "registered unhealthy"},
		{"cores", mut(func(d []gpus.DeviceInfo) []gpus.DeviceInfo { d[0].Devcore = 50; return d }), "50% cores, want 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Register("n", w.Cards(), tt.got)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if err := Version("a", "v1.36.3", "v1.36.4"); err == nil || !strings.Contains(err.Error(), "reports v1.36.3, the lab pins v1.36.4") {
		t.Fatalf("Version err = %v", err)
	}
}
