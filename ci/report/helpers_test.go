package report

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

const samplePath = "testdata/sample/results.json"

// sampleRun loads the sample run of the default lab through Read, so every
// report test also exercises the reader.
func sampleRun(t *testing.T) *results.Run {
	t.Helper()
	run, err := Read(samplePath)
	if err != nil {
		t.Fatalf("read sample: %v", err)
	}
	return run
}

// writeSample writes all reports of run into a fresh directory.
func writeSample(t *testing.T, run *results.Run) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "reports")
	if err := WriteAll(dir, run); err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	return dir
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustDuration(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
