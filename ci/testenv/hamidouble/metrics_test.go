package hamidouble

import (
	"io"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

type sample struct {
	name   string
	labels map[string]string
	value  string
}

var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"`)

// parseScrape reads Prometheus text-format samples (no escapes in values,
// which neither scrape has).
func parseScrape(t *testing.T, text string) []sample {
	t.Helper()
	var out []sample
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s := sample{labels: map[string]string{}}
		head, value, ok := strings.Cut(line, "} ")
		if !ok {
			t.Fatalf("unexpected sample line %q", line)
		}
		name, lbls, _ := strings.Cut(head, "{")
		s.name, s.value = name, value
		for _, m := range labelPair.FindAllStringSubmatch(lbls, -1) {
			s.labels[m[1]] = m[2]
		}
		out = append(out, s)
	}
	return out
}

func (e *env) scrape() []sample {
	e.t.Helper()
	rec := httptest.NewRecorder()
	e.d.metricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	return parseScrape(e.t.(*testing.T), string(body))
}

func labelNames(s sample) string {
	var names []string
	for k := range s.labels {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

// shape maps each metric name to its label names.
func shape(samples []sample) map[string]string {
	out := map[string]string{}
	for _, s := range samples {
		out[s.name] = labelNames(s)
	}
	return out
}

// TestMetricsMatchTheRealScrape: for a node with two L4 cards and nothing
// allocated, the double's scrape has the real HAMi v2.10.0 scrape's metric
// names, label names, per-card values and device types; only the node name,
// the UUIDs and hami_build_info's labels values differ.
func TestMetricsMatchTheRealScrape(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/hami-v2.10.0-metrics-tenant-b.txt")
	if err != nil {
		t.Fatal(err)
	}
	real := parseScrape(t, string(raw))
	e := newEnv(t, Config{})
	var got []sample
	for _, s := range e.scrape() {
		if n, ok := s.labels["node"]; !ok || n == nodeB {
			got = append(got, s)
		}
	}
	if want, have := shape(real), shape(got); !mapsEqual(want, have) {
		t.Fatalf("metric names and label names differ from the real scrape:\nreal   %v\ndouble %v", want, have)
	}
	if len(got) != len(real) {
		t.Errorf("%d samples for worker-b, real scrape has %d", len(got), len(real))
	}
	for _, r := range real {
		if r.name == "hami_build_info" {
			continue
		}
		i := slices.IndexFunc(got, func(s sample) bool {
			return s.name == r.name && s.labels["device_index"] == r.labels["device_index"]
		})
		if i < 0 {
			t.Errorf("no %s for device_index %s", r.name, r.labels["device_index"])
			continue
		}
		g := got[i]
		for k, v := range r.labels {
			if k != "node" && k != "device_uuid" && g.labels[k] != v {
				t.Errorf("%s[%s] label %s = %q, real %q", r.name, r.labels["device_index"], k, g.labels[k], v)
			}
		}
		if g.value != r.value {
			t.Errorf("%s[%s] = %s, real %s", r.name, r.labels["device_index"], g.value, r.value)
		}
	}
	for _, s := range got {
		if s.name == "hami_build_info" && s.labels["version"] != doubleVersion {
			t.Errorf("hami_build_info version %q, want %q", s.labels["version"], doubleVersion)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// cardsListed returns the UUIDs the scrape's hami_gpu_memory_limit_bytes lists.
func cardsListed(samples []sample) []string {
	var out []string
	for _, s := range samples {
		if s.name == "hami_gpu_memory_limit_bytes" {
			out = append(out, s.labels["device_uuid"])
		}
	}
	sort.Strings(out)
	return out
}

// TestMetricsListOnlyRegisteredCards: before the first pass /metrics lists
// no card (what the readiness gate waits for); after it, all three; with
// MetricsBeforeRegistration it lists them too early.
func TestMetricsListOnlyRegisteredCards(t *testing.T) {
	t.Parallel()
	e := newUnregisteredEnv(t, Config{})
	if got := cardsListed(e.scrape()); len(got) != 0 {
		t.Errorf("before registration: %v, want no card", got)
	}
	e.d.setFaults(Faults{MetricsBeforeRegistration: true})
	if got := cardsListed(e.scrape()); len(got) != 3 {
		t.Errorf("MetricsBeforeRegistration: %v, want all three cards", got)
	}
	e.d.setFaults(Faults{})
	e.register()
	want := []string{e.uuid(nodeA, 0), e.uuid(nodeB, 0), e.uuid(nodeB, 1)}
	sort.Strings(want)
	if got := cardsListed(e.scrape()); !slices.Equal(got, want) {
		t.Errorf("after registration: %v, want %v", got, want)
	}
}

// TestMetricsUsageFollowsThePass: card usage is the last pass's snapshot
// (HAMi's overviewstatus); container grants show at once.
func TestMetricsUsageFollowsThePass(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	p := slicePod(e, "p", nodeA)
	if _, errText := e.schedule(p, nodeA); errText != "" {
		t.Fatal(errText)
	}
	value := func(name string) string {
		for _, s := range e.scrape() {
			if s.name == name && s.labels["node"] == nodeA {
				return s.value
			}
		}
		return "absent"
	}
	if got := value("hami_gpu_memory_allocated_bytes"); got != "0" {
		t.Errorf("allocated before the next pass = %s, want 0", got)
	}
	if got := value("hami_vgpu_memory_allocated_bytes"); got != "1.048576e+09" {
		t.Errorf("container grant = %s, want 1000 MiB in bytes", got)
	}
	e.register()
	if got := value("hami_gpu_memory_allocated_bytes"); got != "1.048576e+09" {
		t.Errorf("allocated after the pass = %s, want 1000 MiB in bytes", got)
	}
	if got := value("hami_gpu_shared_count"); got != "1" {
		t.Errorf("shared count = %s, want 1", got)
	}
}

// TestLegacyMetrics: --legacy-metrics adds the pre-2.9 names alongside.
func TestLegacyMetrics(t *testing.T) {
	t.Parallel()
	for _, legacy := range []bool{false, true} {
		e := newEnv(t, Config{LegacyMetrics: legacy})
		var found bool
		for _, s := range e.scrape() {
			if s.name == "GPUDeviceMemoryLimit" && s.labels["deviceuuid"] == e.uuid(nodeA, 0) && s.labels["nodeid"] == nodeA {
				found = true
			}
		}
		if found != legacy {
			t.Errorf("LegacyMetrics=%v: GPUDeviceMemoryLimit present=%v", legacy, found)
		}
	}
}

// TestReadinessGateReadsTheDouble: the gpus stage's parser
// (gpus.MissingCards) finds every card missing before the first pass and
// none after it.
func TestReadinessGateReadsTheDouble(t *testing.T) {
	t.Parallel()
	e := newUnregisteredEnv(t, Config{})
	want := []string{e.uuid(nodeA, 0), e.uuid(nodeB, 0), e.uuid(nodeB, 1)}
	raw := func() []byte {
		rec := httptest.NewRecorder()
		e.d.metricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.Bytes()
	}
	if missing := gpus.MissingCards(raw(), want); len(missing) != 3 {
		t.Errorf("before registration missing %v, want all three", missing)
	}
	e.register()
	if missing := gpus.MissingCards(raw(), want); len(missing) != 0 {
		t.Errorf("after registration missing %v, want none", missing)
	}
}
