package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// writeDiagnostics writes diagnostics/<case ID>/<file> for every case that
// carries diagnostics. Names come from the suite, but they become paths, so
// anything that could leave the directory is refused rather than cleaned.
func writeDiagnostics(dir string, run *results.Run) error {
	var errs []error
	for i := range run.Cases {
		c := &run.Cases[i]
		if len(c.Diagnostics) == 0 {
			continue
		}
		if err := plainName(c.ID); err != nil {
			errs = append(errs, fmt.Errorf("case %q: field id: %w", c.ID, err))
			continue
		}
		cdir := filepath.Join(dir, c.ID)
		if err := os.MkdirAll(cdir, 0o755); err != nil {
			errs = append(errs, fmt.Errorf("case %s: %w", c.ID, err))
			continue
		}
		for _, name := range sortedKeys(c.Diagnostics) {
			if err := plainName(name); err != nil {
				errs = append(errs, fmt.Errorf("case %s: diagnostics file %q: %w", c.ID, name, err))
				continue
			}
			if err := writeFile(filepath.Join(cdir, name), []byte(c.Diagnostics[name])); err != nil {
				errs = append(errs, fmt.Errorf("case %s: %w", c.ID, err))
			}
		}
	}
	return errors.Join(errs...)
}

func plainName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return errors.New("must be a plain file name such as events.txt")
	case strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0):
		return errors.New(`must be a plain file name without "/" or "\"`)
	}
	return nil
}
