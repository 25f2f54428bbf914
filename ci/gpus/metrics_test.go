package gpus

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// The two cards of the recorded scrape (testdata/README.md: a real HAMi
// v2.10.0 scheduler, default flags, HAMI-FACTS.md §5.3).
const (
	recordedCard0 = "GPU-e18743c3-5b23-bbfb-f403-f5f9ab9b4640"
	recordedCard1 = "GPU-27108987-6cd9-6a62-688c-e7a68b0c29b0"
	recordedNode  = "tenant-b-worker"
)

func recordedScrape(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/hami-v2.10.0-metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withoutLines drops every line containing sub: a real scrape with one
// family or one card taken out.
func withoutLines(scrape []byte, sub string) []byte {
	var keep []string
	for _, l := range strings.Split(string(scrape), "\n") {
		if !strings.Contains(l, sub) {
			keep = append(keep, l)
		}
	}
	return []byte(strings.Join(keep, "\n"))
}

func TestCardsInRecordedMetrics(t *testing.T) {
	got := cardsInMetrics(recordedScrape(t))
	want := map[string]metricCard{
		recordedCard0: {UUID: recordedCard0, Node: recordedNode, Index: "0", Type: "NVIDIA-L4", MemoryLimitBytes: 25769803776},
		recordedCard1: {UUID: recordedCard1, Node: recordedNode, Index: "1", Type: "NVIDIA-L4", MemoryLimitBytes: 25769803776},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CardsInMetrics(recorded scrape) =\n%+v\nwant\n%+v", got, want)
	}
	// The observer's note: 24576 MiB registered, reported in bytes.
	if mib := got[recordedCard0].memoryLimitMiB(); mib != 24576 {
		t.Errorf("MemoryLimitMiB = %d, want 24576", mib)
	}
}

func TestMissingCards(t *testing.T) {
	real := recordedScrape(t)
	tests := []struct {
		name   string
		scrape []byte
		want   []string
		miss   []string
	}{
		{"every card registered", real, []string{recordedCard0, recordedCard1}, nil},
		{"a card HAMi has not registered", real, []string{recordedCard1, "GPU-zzz", recordedCard0}, []string{"GPU-zzz"}},
		{"one card dropped from the scrape", withoutLines(real, recordedCard1), []string{recordedCard0, recordedCard1}, []string{recordedCard1}},
		// Only hami_gpu_memory_limit_bytes counts: the other families carry
		// device_uuid too, but the check reads one family on purpose.
		{"memory limit family missing", withoutLines(real, MetricMemoryLimit+"{"), []string{recordedCard0}, []string{recordedCard0}},
		{"empty scrape (node unregistered)", nil, []string{recordedCard0}, []string{recordedCard0}},
		{"build info only, as right after HAMi starts", []byte(strings.Split(string(real), "\n")[0] + "\n"), []string{recordedCard0},
			[]string{recordedCard0}},
		{"nothing wanted", real, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MissingCards(tt.scrape, tt.want); !reflect.DeepEqual(got, tt.miss) {
				t.Errorf("MissingCards = %v, want %v", got, tt.miss)
			}
		})
	}
}

// TestLegacyMetricsDoNotCount: the legacy family HAMi v2.10.0 emits only
// with --legacy-metrics=true (cmd/scheduler/metrics.go, legacyMemoryLimitDesc:
// GPUDeviceMemoryLimit{nodeid, deviceuuid, deviceidx, devicetype}). A lab
// reading it would wait forever on a default HAMi, and a scrape that has only
// it is not a default HAMi: it must not pass the gate.
func TestLegacyMetricsDoNotCount(t *testing.T) {
	legacy := []byte(`GPUDeviceMemoryLimit{deviceidx="0",deviceuuid="` + recordedCard0 + `",devicetype="NVIDIA-L4",nodeid="` + recordedNode +
		`",zone="vGPU"} 2.5769803776e+10
`)
	if got := cardsInMetrics(legacy); len(got) != 0 {
		t.Errorf("CardsInMetrics(legacy only) = %v, want no cards", got)
	}
	if ok, cond := SeesAllCards(legacy, []string{recordedCard0}); ok {
		t.Errorf("SeesAllCards(legacy only) = true (%s), want false", cond)
	}
}

func TestParseSampleForms(t *testing.T) {
	tests := []struct {
		name string
		line string
		ok   bool
		card metricCard
	}{
		{"labels in another order, integer value",
			`hami_gpu_memory_limit_bytes{zone="vGPU",node="n1",device_uuid="GPU-x",device_type="NVIDIA-A100",device_index="3"} 85899345920`,
			true, metricCard{UUID: "GPU-x", Node: "n1", Index: "3", Type: "NVIDIA-A100", MemoryLimitBytes: 85899345920}},
		{"spaces after commas and a timestamp",
			`hami_gpu_memory_limit_bytes{device_uuid="GPU-y", node="n2"} 1.048576e+06 1733000000000`,
			true, metricCard{UUID: "GPU-y", Node: "n2", MemoryLimitBytes: 1 << 20}},
		{"escaped quote in a label value",
			`hami_gpu_memory_limit_bytes{device_type="a\"b",device_uuid="GPU-z",node="n"} 0`,
			true, metricCard{UUID: "GPU-z", Node: "n", Type: `a"b`}},
		{"unterminated label set", `hami_gpu_memory_limit_bytes{device_uuid="GPU-q" 1`, false, metricCard{}},
		{"no value", `hami_gpu_memory_limit_bytes{device_uuid="GPU-q"}`, false, metricCard{}},
		{"no uuid label", `hami_gpu_memory_limit_bytes{node="n"} 1`, false, metricCard{}},
		{"a longer name with the same prefix", `hami_gpu_memory_limit_bytes_total{device_uuid="GPU-q"} 1`, false, metricCard{}},
		{"comment", `# TYPE hami_gpu_memory_limit_bytes gauge`, false, metricCard{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cardsInMetrics([]byte(tt.line + "\n"))
			if !tt.ok {
				if len(got) != 0 {
					t.Errorf("CardsInMetrics = %+v, want none", got)
				}
				return
			}
			if c, ok := got[tt.card.UUID]; !ok || c != tt.card {
				t.Errorf("CardsInMetrics = %+v, want %+v", got, tt.card)
			}
		})
	}
}

func TestSeesAllCards(t *testing.T) {
	real := recordedScrape(t)
	tests := []struct {
		want []string
		ok   bool
		cond string
	}{
		{[]string{recordedCard0, recordedCard1}, true, "HAMi sees 2/2 cards"},
		{[]string{recordedCard0, recordedCard1, "GPU-c", "GPU-b"}, false, "HAMi sees 2/4 cards, missing GPU-b, GPU-c"},
	}
	for _, tt := range tests {
		ok, cond := SeesAllCards(real, tt.want)
		if ok != tt.ok || cond != tt.cond {
			t.Errorf("SeesAllCards(%v) = %v, %q; want %v, %q", tt.want, ok, cond, tt.ok, tt.cond)
		}
	}
}
