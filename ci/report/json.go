package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

func writeJSON(path string, run *results.Run) error {
	out := *run
	if out.Schema == "" {
		out.Schema = results.SchemaVersion
	}
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, append(b, '\n'))
}

// Read loads a results.json written by WriteAll (path may be the file or
// the report directory holding it) and checks its schema version.
func Read(path string) (*results.Run, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, JSONFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	var run results.Run
	if err := json.Unmarshal(b, &run); err != nil {
		return nil, fmt.Errorf("read results %s: not a results.json: %w", path, err)
	}
	if run.Schema != results.SchemaVersion {
		return nil, fmt.Errorf("read results %s: field \"schema\" is %q, want %q: regenerate it with a labctl of the same schema version",
			path, run.Schema, results.SchemaVersion)
	}
	return &run, nil
}
