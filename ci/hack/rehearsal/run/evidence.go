package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/state"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// In the reports directory, beside the suite's reports.
const (
	// diagnosticsDir holds labctl up's diagnostics of a failed stage
	// (its state directory's diagnostics/).
	diagnosticsDir = "lab-diagnostics"
	// daemonLogsDir holds the private daemon's logs after a failure.
	daemonLogsDir = "daemon-logs"
	// stagesFile is labctl up's stage records.
	stagesFile = state.StagesFile
)

// ReadSuite reads the suite's results.json in dir; nil when there is none.
func ReadSuite(dir string) (*Suite, error) {
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		return nil, err
	}
	var run results.Run
	if err := json.Unmarshal(b, &run); err != nil {
		return nil, fmt.Errorf("%s/results.json: %w", dir, err)
	}
	s := &Suite{Duration: time.Duration(run.Duration)}
	s.Passed, s.Failed, s.Skipped = run.Counts()
	for _, c := range run.Cases {
		if c.Status == results.Failed {
			s.FailedCases = append(s.FailedCases, c.ID+": "+c.Message)
		}
	}
	return s, nil
}

// exportEvidence copies what cleanup would remove and a reader needs into
// the reports directory: labctl up's stage records and diagnostics always,
// the daemon's logs when the rehearsal failed.
func (rh *runState) exportEvidence(failed bool) {
	p := rh.o.Paths
	if rh.reports == nil {
		return
	}
	copies := [][2]string{
		{state.Dir(p.State).StagesPath(), stagesFile},
		{state.Dir(p.State).DiagnosticsRoot(), diagnosticsDir},
	}
	if failed && rh.made.Daemon {
		copies = append(copies, [2]string{p.Daemon.LogDir(), daemonLogsDir})
	}
	for _, c := range copies {
		if err := copyTree(c[0], rh.reports, c[1]); err != nil {
			rh.log.Warn("could not keep evidence in the reports", "from", c[0], "to", filepath.Join(p.Reports, c[1]), "err", err)
		}
	}
}

// copyTree copies a file or a directory's regular files to dst inside
// root; a missing source copies nothing.
func copyTree(src string, root *os.Root, dst string) error {
	st, err := os.Stat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		if err := root.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return copyInto(root, src, dst)
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return root.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			return copyInto(root, path, to)
		}
		return nil
	})
}

// cleanup undoes what the rehearsal made (CleanupPlan), or with Keep says
// how to, and records either in the report.
func (rh *runState) cleanup(ctx context.Context) error {
	if rh.changes == nil {
		return nil // nothing on the host was changed
	}
	if rh.o.Keep {
		for _, c := range keptCommands(rh.made, rh.o.Paths, rh.o.LibModulesDir) {
			rh.r.Cleanup = append(rh.r.Cleanup, "kept (--keep); remove "+c)
		}
		return rh.changes.Leave()
	}
	var errs []error
	for _, a := range cleanupPlan(rh.made, false) {
		var err error
		switch a {
		case actLabDown:
			var res stepResult
			if res, err = rh.step(ctx, down(rh.o.Paths)); err == nil && res.ExitCode != 0 {
				err = fmt.Errorf("labctl down exited %d: %s (its log: %s)", res.ExitCode, lastLines(res.Tail, 3), res.Log)
			}
		case actStopDaemon:
			rh.watch("stopping the private daemon")
			err = rh.d.Daemon.stop(ctx)
			rh.watch("")
		case actRemoveState:
			err = os.RemoveAll(rh.o.State)
			if err == nil {
				// Stopping the daemon removed its directory, and the
				// record with it, when nothing else was in it.
				if ferr := rh.changes.Forget(rh.o.State); !errors.Is(ferr, fs.ErrNotExist) {
					err = ferr
				}
			}
			if err == nil && rh.made.StateParent {
				err = removeEmptyDir(filepath.Dir(rh.o.State))
			}
		case actRemoveLibModules:
			err = rh.changes.UndoDirs(rh.log)
		case actRestoreLimits:
			err = rh.changes.UndoSysctls(rh.log)
		}
		rh.r.Cleanup = append(rh.r.Cleanup, describe(a, err))
		if err != nil {
			errs = append(errs, fmt.Errorf("cleanup: %s: %w", a, err))
		}
	}
	return errors.Join(append(errs, rh.changes.Close())...)
}
