package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

func TestSummaryGolden(t *testing.T) {
	dir := writeSample(t, sampleRun(t))
	got := readFile(t, filepath.Join(dir, SummaryFile))
	golden := "testdata/sample/summary.md"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want := readFile(t, golden); got != want {
		t.Errorf("summary.md differs from %s (rerun with -update and review the diff):\n%s", golden, got)
	}
}

// GitHub aborts a step summary above 1 MiB; a run with huge logs must
// still produce a summary that fits, and say where the rest is.
func TestSummaryStaysUnderGitHubLimit(t *testing.T) {
	run := &results.Run{Schema: results.SchemaVersion, Backend: "kind+kamaji+hami", Parallel: 4}
	huge := strings.Repeat("event line with ``` fences and | pipes\n", 20000)
	for i := range 200 {
		run.Cases = append(run.Cases, results.Case{
			ID: "TC-" + itoa(100+i), Title: "case", Status: results.Failed, Duration: results.Duration(time.Second),
			Message: strings.Repeat("m", 5000), Details: huge,
		})
	}
	got := summaryMarkdown(run)
	if len(got) > 512<<10 {
		t.Fatalf("summary is %d bytes, want well under GitHub's 1 MiB", len(got))
	}
	if !strings.Contains(got, "this summary stops here") {
		t.Error("a cut summary must say that more failures are elsewhere")
	}
	if !strings.Contains(got, "truncated") {
		t.Error("long details must be marked as truncated")
	}
}

func TestSummaryEscapesTableCells(t *testing.T) {
	run := &results.Run{Cases: []results.Case{{ID: "TC-01", Title: "a | b <script>", Status: results.Skipped, Message: "x|y\nz"}}}
	got := summaryMarkdown(run)
	if !strings.Contains(got, `a \| b &lt;script&gt;`) || !strings.Contains(got, `x\|y z`) {
		t.Errorf("table cells not escaped:\n%s", got)
	}
}

func TestFenceOutgrowsBackticksInside(t *testing.T) {
	got := fence("a ```` b")
	if !strings.HasPrefix(got, "`````text\n") || !strings.HasSuffix(got, "\n`````\n") {
		t.Errorf("fence = %q", got)
	}
}

func TestSummaryInterrupted(t *testing.T) {
	got := summaryMarkdown(&results.Run{Interrupted: true})
	if !strings.Contains(got, "## ❌") || !strings.Contains(got, "interrupted") || !strings.Contains(got, "No case ran") {
		t.Errorf("interrupted empty run summary:\n%s", got)
	}
}
