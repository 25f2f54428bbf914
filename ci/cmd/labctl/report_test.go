package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommandRegeneratesReports(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reports")
	out, err := runRoot(t, "report", "--from", "../../report/testdata/sample/results.json", "--report-dir", dir)
	if err != nil {
		t.Fatalf("labctl report: %v", err)
	}
	for _, f := range []string{"junit.xml", "results.json", "summary.md", "report.html", "diagnostics/TC-12/events.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if !strings.Contains(out, "13 passed, 2 failed, 1 skipped") {
		t.Errorf("output %q does not tally the run", out)
	}

	if _, err := runRoot(t, "report", "--from", filepath.Join(dir, "missing.json"), "--report-dir", dir); err == nil ||
		!strings.Contains(err.Error(), "missing.json") {
		t.Errorf("labctl report of a missing file = %v, want an error naming it", err)
	}
}
