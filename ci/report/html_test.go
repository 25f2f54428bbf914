package report

import (
	"html"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

func countCards(run *results.Run) (n int, uuids []string) {
	for _, t := range run.Tenants {
		for _, node := range t.Nodes {
			for _, c := range node.Cards {
				n++
				uuids = append(uuids, c.UUID)
			}
		}
	}
	return n, uuids
}

func TestHTMLHasOneCardPicturePerRegisteredGPU(t *testing.T) {
	run := sampleRun(t)
	html := readFile(t, filepath.Join(writeSample(t, run), HTMLFile))
	// The sample holds three samples: tenant-a twice (one A100 each time),
	// tenant-b once (two L4s): four pictures of the default lab's 3 GPUs.
	want, uuids := countCards(run)
	if distinct := len(slices.Compact(slices.Sorted(slices.Values(uuids)))); want != 4 || distinct != 3 {
		t.Fatalf("sample has %d card samples of %d GPUs, want 4 of the default lab's 3", want, distinct)
	}
	if got := strings.Count(html, `data-gpu-card="`); got != want {
		t.Errorf("report.html has %d card pictures, want %d (one per registered GPU per sample)", got, want)
	}
	for _, u := range uuids {
		if n := strings.Count(html, `data-gpu-card="`+u+`"`); n != strings.Count(strings.Join(uuids, " "), u) {
			t.Errorf("%d card pictures for %s, want one per sample that registered it", n, u)
		}
	}
	if got := strings.Count(html, "data-sample>") + strings.Count(html, "data-sharing>"); got != len(run.Tenants) {
		t.Errorf("%d sample blocks, want %d", got, len(run.Tenants))
	}
	for _, s := range run.Tenants {
		if !strings.Contains(html, htmlEscape(s.Moment)) {
			t.Errorf("sample moment %q not shown", s.Moment)
		}
	}
	// tenant-a's samples come in time order, under one tenant heading.
	if strings.Count(html, `data-tenant="tenant-a"`) != 1 ||
		strings.Index(html, "TC-05: the three") > strings.Index(html, "TC-13: tc03-pod-3 deleted") {
		t.Error("tenant-a's samples are not grouped under one tenant in time order")
	}
	// Each card has a memory and a cores bar; each holder a segment in both.
	if got := strings.Count(html, `data-bar="memory"`); got != want {
		t.Errorf("%d memory bars, want %d", got, want)
	}
	if got := strings.Count(html, `data-bar="cores"`); got != want {
		t.Errorf("%d cores bars, want %d", got, want)
	}
	for _, s := range []string{"60000 / 81920 MB", "90 / 100 %", "20480 / 24576 MB", "70 / 100 %", "12288 / 24576 MB", "50 / 100 %",
		"tc03-pod-1", "tc03-pod-2", "tc03-pod-3", "tc13-fresh", "21920 MB free", "4.2 s</span>", "10.4 s</span>"} {
		if !strings.Contains(html, s) {
			t.Errorf("report.html lacks %q", s)
		}
	}
	// tc09-two-gpus holds a slice on both L4s and keeps one colour.
	re := regexp.MustCompile(`data-holder="gpulab-tc09-5d02/tc09-two-gpus"><td><span class="sw (p\d)"`)
	m := re.FindAllStringSubmatch(html, -1)
	if len(m) != 2 || m[0][1] != m[1][1] {
		t.Errorf("tc09-two-gpus legend entries %v: want two with the same colour", m)
	}
}

func TestHTMLHasTimelineAndTable(t *testing.T) {
	run := sampleRun(t)
	html := readFile(t, filepath.Join(writeSample(t, run), HTMLFile))
	if !strings.Contains(html, `<svg class="timeline"`) {
		t.Fatal("no timeline svg")
	}
	for _, c := range run.Cases {
		if !strings.Contains(html, `data-timeline-case="`+c.ID+`"`) {
			t.Errorf("timeline lacks %s", c.ID)
		}
		if !strings.Contains(html, `data-case="`+c.ID+`"`) {
			t.Errorf("case table lacks %s", c.ID)
		}
	}
	if !strings.Contains(html, `href="diagnostics/TC-12/events.txt"`) {
		t.Error("failed case does not link its diagnostics")
	}
}

// One self-contained file: nothing is fetched from anywhere.
func TestHTMLIsSelfContained(t *testing.T) {
	html := readFile(t, filepath.Join(writeSample(t, sampleRun(t)), HTMLFile))
	for _, re := range []string{`<script`, `<link`, `<img`, `@import`, `url\(`, `src=`, `href="(https?:)?//`} {
		if regexp.MustCompile(re).MatchString(html) {
			t.Errorf("report.html contains %s: it must not load anything", re)
		}
	}
}

func TestHTMLEscapesEverything(t *testing.T) {
	run := sampleRun(t)
	evil := `<script>alert(1)</script>`
	run.Cases[0].Title = evil
	run.Cases[0].Message = evil
	run.Tenants[0].Name = evil
	run.Tenants[0].Nodes[0].Cards[0].Holders[0].Pod = evil
	run.Backend = evil
	html := readFile(t, filepath.Join(writeSample(t, run), HTMLFile))
	if strings.Contains(html, evil) {
		t.Fatal("report.html contains unescaped user text")
	}
	if !strings.Contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("escaped text missing: the test did not reach the template")
	}
}

func TestCardSegments(t *testing.T) {
	tests := []struct {
		name      string
		card      results.Card
		memPct    []float64
		freePct   float64
		over      bool
		usedCores int
	}{
		{"three slices", results.Card{MemoryMB: 81920, Cores: 100, Holders: []results.Slice{
			{Pod: "a", MemoryMB: 20000, Cores: 30}, {Pod: "b", MemoryMB: 20000, Cores: 30}, {Pod: "c", MemoryMB: 20000, Cores: 30}}},
			[]float64{24.41, 24.41, 24.41}, 26.76, false, 90},
		{"idle", results.Card{MemoryMB: 24576, Cores: 100}, nil, 100, false, 0},
		{"over-committed: scaled to the holders", results.Card{MemoryMB: 100, Cores: 100, Holders: []results.Slice{
			{Pod: "a", MemoryMB: 100, Cores: 60}, {Pod: "b", MemoryMB: 100, Cores: 60}}},
			[]float64{50, 50}, 0, true, 120},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv := newCard(tt.card, 0, map[string]int{})
			if len(cv.MemSegs) != len(tt.memPct) {
				t.Fatalf("%d memory segments, want %d", len(cv.MemSegs), len(tt.memPct))
			}
			for i, s := range cv.MemSegs {
				if d := s.Pct - tt.memPct[i]; d > 0.01 || d < -0.01 {
					t.Errorf("segment %d = %.2f%%, want %.2f%%", i, s.Pct, tt.memPct[i])
				}
			}
			if d := cv.MemFreePct - tt.freePct; d > 0.01 || d < -0.01 {
				t.Errorf("free = %.2f%%, want %.2f%%", cv.MemFreePct, tt.freePct)
			}
			if wantLimit := tt.usedCores > 100; (cv.CoreLimitPct > 0) != wantLimit {
				t.Errorf("cores limit marker at %.2f%%, want one: %v", cv.CoreLimitPct, wantLimit)
			}
			if cv.MemOver != tt.over || cv.CoreOver != (tt.usedCores > 100) || cv.UsedCores != tt.usedCores {
				t.Errorf("over=%v/%v used cores %d, want over=%v used %d", cv.MemOver, cv.CoreOver, cv.UsedCores, tt.over, tt.usedCores)
			}
		})
	}
}

func TestTickStep(t *testing.T) {
	tests := map[string]struct{ wall, want string }{
		"sub-second": {"800ms", "100ms"},
		"seconds":    {"47.9s", "5s"},
		"minutes":    {"6m", "50s"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tickStep(mustDuration(t, tt.wall)).String(); got != tt.want {
				t.Errorf("tickStep(%s) = %s, want %s", tt.wall, got, tt.want)
			}
		})
	}
}

func htmlEscape(s string) string { return html.EscapeString(s) }
