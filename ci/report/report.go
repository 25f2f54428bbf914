// Package report writes the reports of one suite run: junit.xml for CI
// test views, results.json for machines, summary.md for a CI job summary,
// report.html for people, and diagnostics/<case>/<file> for failed cases.
// It only reads a results.Run; it never talks to a cluster.
package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// File names inside a report directory.
const (
	JUnitFile      = "junit.xml"
	JSONFile       = "results.json"
	SummaryFile    = "summary.md"
	HTMLFile       = "report.html"
	DiagnosticsDir = "diagnostics"
)

// WriteAll writes every report of run into dir, creating dir. It is meant
// to be called for failed and interrupted runs too, so one writer failing
// does not stop the others: all errors are returned joined.
func WriteAll(dir string, run *results.Run) error {
	if run == nil {
		return errors.New("write reports: run is nil")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write reports: create report dir %s: %w", dir, err)
	}
	writers := []struct {
		name  string
		write func(string, *results.Run) error
	}{
		{JSONFile, writeJSON},
		{JUnitFile, writeJUnit},
		{SummaryFile, writeSummary},
		{HTMLFile, writeHTML},
		{DiagnosticsDir, writeDiagnostics},
	}
	var errs []error
	for _, w := range writers {
		if err := w.write(filepath.Join(dir, w.name), run); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", filepath.Join(dir, w.name), err))
		}
	}
	return errors.Join(errs...)
}

// writeFile replaces path atomically so an interrupted write never leaves
// a half report behind a reader's back.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
