package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

func TestResultsJSONRoundTrips(t *testing.T) {
	run := sampleRun(t)
	dir := writeSample(t, run)
	for _, from := range []string{dir, filepath.Join(dir, JSONFile)} {
		got, err := Read(from)
		if err != nil {
			t.Fatalf("Read(%s): %v", from, err)
		}
		if !reflect.DeepEqual(got, run) {
			a, _ := json.Marshal(run)
			b, _ := json.Marshal(got)
			t.Fatalf("results.json did not round-trip:\nwrote %s\nread  %s", a, b)
		}
	}
}

func TestResultsJSONGetsSchemaVersion(t *testing.T) {
	run := sampleRun(t)
	run.Schema = ""
	dir := writeSample(t, run)
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Schema != results.SchemaVersion {
		t.Errorf("schema = %q, want %q", got.Schema, results.SchemaVersion)
	}
	if run.Schema != "" {
		t.Error("WriteAll modified the caller's run")
	}
}

func TestReadRejectsBadInput(t *testing.T) {
	tests := map[string]struct {
		content string
		want    string
	}{
		"other schema": {`{"schema":"gpu-lab.results/v0","cases":[]}`, `field "schema" is "gpu-lab.results/v0"`},
		"no schema":    {`{"cases":[]}`, `field "schema" is ""`},
		"not json":     {`<testsuites/>`, "not a results.json"},
		"wrong type":   {`{"schema":"gpu-lab.results/v1","duration":"5s"}`, "not a results.json"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "results.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Read(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Read = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Read of a missing file succeeded")
	}
}
