package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

var allReports = []string{JUnitFile, JSONFile, SummaryFile, HTMLFile}

func TestWriteAllWritesDiagnostics(t *testing.T) {
	run := sampleRun(t)
	dir := writeSample(t, run)
	for _, c := range run.Cases {
		for name, content := range c.Diagnostics {
			if got := readFile(t, filepath.Join(dir, DiagnosticsDir, c.ID, name)); got != content {
				t.Errorf("diagnostics/%s/%s = %q, want %q", c.ID, name, got, content)
			}
		}
		if len(c.Diagnostics) == 0 {
			if _, err := os.Stat(filepath.Join(dir, DiagnosticsDir, c.ID)); err == nil {
				t.Errorf("diagnostics/%s exists though the case has none", c.ID)
			}
		}
	}
}

// Reports are written for failed and interrupted runs, and a bad
// diagnostics name fails only its own file.
func TestWriteAllKeepsGoing(t *testing.T) {
	run := sampleRun(t)
	run.Interrupted = true
	run.Cases[11].Diagnostics["../../escape.txt"] = "x"
	dir := filepath.Join(t.TempDir(), "nested", "reports")
	err := WriteAll(dir, run)
	if err == nil || !strings.Contains(err.Error(), `diagnostics file "../../escape.txt"`) || !strings.Contains(err.Error(), "TC-12") {
		t.Fatalf("WriteAll = %v, want an error naming the case and the bad file", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "..", "escape.txt")); err == nil {
		t.Fatal("a diagnostics file escaped the report directory")
	}
	for _, f := range allReports {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, DiagnosticsDir, "TC-12", "events.txt")); err != nil {
		t.Errorf("good diagnostics of the same case not written: %v", err)
	}
	if html := readFile(t, filepath.Join(dir, HTMLFile)); !strings.Contains(html, "data-interrupted") {
		t.Error("report.html does not say the run was interrupted")
	}
}

func TestWriteAllEmptyInterruptedRun(t *testing.T) {
	dir := writeSample(t, &results.Run{Interrupted: true, Backend: "existing platform"})
	for _, f := range allReports {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	if junit := readFile(t, filepath.Join(dir, JUnitFile)); !strings.Contains(junit, `<property name="interrupted" value="true">`) {
		t.Errorf("junit.xml does not record the interruption:\n%s", junit)
	}
}

func TestWriteAllRejectsNilRun(t *testing.T) {
	if err := WriteAll(t.TempDir(), nil); err == nil {
		t.Error("WriteAll(nil) succeeded")
	}
}

func TestPlainName(t *testing.T) {
	for name, ok := range map[string]bool{"events.txt": true, "pod-a.yaml": true, "": false, ".": false, "..": false,
		"a/b": false, `a\b`: false, "../x": false} {
		if got := plainName(name) == nil; got != ok {
			t.Errorf("plainName(%q) ok = %v, want %v", name, got, ok)
		}
	}
}
