package hostdaemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
)

// markerText is the marker file's content: a reader who finds the
// directory learns what it is.
const markerText = "made by `rehearse daemon up` or `rehearse run`; " +
	"`rehearse daemon down --dir` this directory stops and removes its daemon\n"

// prepareDir makes the daemon's directory — root's, mode 0700, with the
// marker inside — or accepts one an earlier Start made (its data root
// kept): a directory without the marker is refused, whatever it holds.
func prepareDir(l Layout) error {
	if err := makeTrustedDirs(filepath.Dir(l.Dir)); err != nil {
		return fmt.Errorf("the daemon's directory %s: %w", l.Dir, err)
	}
	err := os.Mkdir(l.Dir, 0o700)
	if errors.Is(err, fs.ErrExist) {
		return checkOurDir(l)
	}
	if err != nil {
		return fmt.Errorf("create the daemon's directory: %w", err)
	}
	if err := checkTrustedDir(l.Dir); err != nil {
		return err
	}
	f, err := os.OpenFile(l.marker(), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("mark the daemon's directory: %w", err)
	}
	_, err = f.WriteString(markerText)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkOurDir fails unless the directory was made by prepareDir: its path
// is trusted (checkTrustedDir) and it holds the marker, a regular file of
// root's.
func checkOurDir(l Layout) error {
	if err := checkTrustedDir(l.Dir); err != nil {
		return fmt.Errorf("the daemon's directory: %w", err)
	}
	fi, err := os.Lstat(l.marker())
	if err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s was not made by `rehearse daemon up` or `rehearse run` (it has no marker %s): "+
			"nothing in it is stopped, unmounted, removed or written; pass the --dir the daemon was started with, "+
			"or a directory that does not exist yet", l.Dir, filepath.Base(l.marker()))
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || (st.Uid != 0 && int(st.Uid) != os.Geteuid()) {
		return fmt.Errorf("the marker %s is not root's: %s was not made by the rehearsal", l.marker(), l.Dir)
	}
	return nil
}

// Claim takes the daemon directory dir (DefaultDir when empty) for this
// process's changes to the host, making it if needed. If its record lists
// changes of a labctl that is gone (killed mid-run), those are undone
// first and logged; if that labctl still runs, or a daemon left up on
// purpose still runs, Claim refuses. In one process, claiming a directory
// again returns the same claim (`rehearse run` claims it, then Start
// continues its record).
func Claim(ctx context.Context, dir, command string, log *slog.Logger) (*Changes, error) {
	o, err := Options{Dir: dir, Log: log}.resolved()
	if err != nil {
		return nil, err
	}
	if c := claimed(o.Dir); c != nil {
		return c, nil
	}
	l := Layout{Dir: o.Dir}
	if err := prepareDir(l); err != nil {
		return nil, err
	}
	rec, err := ReadRecord(l)
	if err != nil {
		return nil, err
	}
	c := &Changes{l: l, rec: rec}
	if err := c.checkNotInUse(); err != nil {
		return nil, err
	}
	if !rec.empty() {
		o.Log.Warn("undoing what an earlier rehearsal left on this host (it was killed?)",
			"record", l.RecordFile(), "command", rec.Command, "pid", rec.Owner.PID)
		if err := c.undo(ctx, o.Log); err != nil {
			return nil, fmt.Errorf("undo what an earlier rehearsal left (its record %s): %w", l.RecordFile(), err)
		}
		if err := removeDataRoot(l, o.Log); err != nil {
			return nil, fmt.Errorf("undo what an earlier rehearsal left (its record %s): %w", l.RecordFile(), err)
		}
	}
	me, err := procOf("labctl", os.Getpid())
	if err != nil {
		return nil, err
	}
	c.rec = Record{Owner: me, Command: command}
	if err := c.update(func(*Record) {}); err != nil {
		return nil, err
	}
	claimsMu.Lock()
	claims[l.Dir] = c
	claimsMu.Unlock()
	return c, nil
}

// checkNotInUse fails while the record's labctl runs, or while a daemon
// left up on purpose runs.
func (c *Changes) checkNotInUse() error {
	rec, dir := c.record(), c.l.Dir
	if rec.ownerRunning() {
		return rec.inUse(dir)
	}
	if rec.Left {
		for _, p := range rec.Processes {
			if p.Alive() {
				return fmt.Errorf("a rehearsal daemon of %s runs already (%s); stop it first (`rehearse daemon down --dir %s`)", dir, p, dir)
			}
		}
	}
	return nil
}

// ownerRunning says the labctl that wrote the record is another process
// that still runs.
func (r Record) ownerRunning() bool {
	return r.Owner.PID != 0 && r.Owner.PID != os.Getpid() && r.Owner.Alive()
}

func (r Record) inUse(dir string) error {
	return fmt.Errorf("labctl pid %d (`labctl %s`) is using the daemon directory %s: "+
		"wait for it to end or interrupt it (kill -INT %d)", r.Owner.PID, r.Command, dir, r.Owner.PID)
}

// open is the claim on the daemon directory: this process's own, or one
// read from an existing directory Start made. nil when the directory does
// not exist.
func open(l Layout) (*Changes, error) {
	if c := claimed(l.Dir); c != nil {
		return c, nil
	}
	if _, err := os.Lstat(l.Dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err := checkOurDir(l); err != nil {
		return nil, err
	}
	rec, err := ReadRecord(l)
	if err != nil {
		return nil, err
	}
	return &Changes{l: l, rec: rec}, nil
}
