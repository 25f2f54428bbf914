package state

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// CheckSafe refuses a state dir that another user owns or that group or
// others may write: whoever can write it can plant a file or a symlink
// where labctl writes an admin kubeconfig.
func (d Dir) CheckSafe() error { return checkSafe(string(d), string(d)) }

func checkSafe(dir, p string) error {
	fi, err := os.Lstat(p)
	if p == dir {
		fi, err = os.Stat(p) // the state dir itself may be a symlink the user made
	}
	if err != nil {
		return fmt.Errorf("state dir %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("state dir %s: %s is not a directory (mode %s): labctl writes only into directories it made; "+
			"move it away or pass another --state-dir", dir, p, fi.Mode())
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	uid := os.Getuid()
	if ok && int(st.Uid) != uid {
		return fmt.Errorf("state dir %s: %s is owned by uid %d, not by you (uid %d), mode %s: "+
			"labctl keeps admin kubeconfigs there and refuses a directory another user owns; pass a --state-dir of your own",
			dir, p, st.Uid, uid, fi.Mode())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("state dir %s: %s has mode %s, so group or others may write it: labctl keeps admin "+
			"kubeconfigs there; fix it with `chmod go-w %s`, or pass a --state-dir of your own", dir, p, fi.Mode(), p)
	}
	return nil
}

// write stores data at rel (slash-separated, under d) with mode: the
// directories on the way are made 0700 (or checked like the state dir),
// the path is recorded in the marker first, then the content goes into a
// new temp file beside it (os.CreateTemp: O_EXCL, never an existing file
// or symlink), whose mode is set before any byte is written, and is
// renamed into place. A file labctl did not record writing is never
// replaced.
func (d Dir) write(rel string, data []byte, mode os.FileMode) error {
	if err := d.reserve(rel); err != nil {
		return err
	}
	if err := writeAtomic(d.path(rel), data, mode); err != nil {
		return fmt.Errorf("state dir %s: %w", d, err)
	}
	return nil
}

// reserve readies rel for a write: the dir is labctl's and safe, the
// directories on the way exist (0700), rel is not a file labctl did not
// write, and rel is recorded.
func (d Dir) reserve(rel string) error {
	markerMu.Lock()
	defer markerMu.Unlock()
	m, err := d.Marker()
	if err != nil {
		return err
	}
	if err := d.CheckSafe(); err != nil {
		return err
	}
	if err := d.mkdirs(path.Dir(rel)); err != nil {
		return err
	}
	p := d.path(rel)
	if _, err := os.Lstat(p); err == nil && !slices.Contains(m.Written, rel) {
		return fmt.Errorf("state dir %s: %s is not a file labctl wrote (%s does not list it): "+
			"labctl never replaces a file it did not write; move it away or pass another --state-dir", d, p, markerFile)
	}
	return d.record(rel)
}

// mkdirs makes every missing directory of rel (0700, recorded) and checks
// every existing one.
func (d Dir) mkdirs(rel string) error {
	if rel == "." || rel == "" {
		return nil
	}
	cur := ""
	for _, part := range strings.Split(rel, "/") {
		cur = path.Join(cur, part)
		p := d.path(cur)
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			if err := d.record(cur + "/"); err != nil {
				return err
			}
			if err := os.Mkdir(p, 0o700); err != nil {
				return fmt.Errorf("state dir %s: %w", d, err)
			}
			continue
		}
		if err := checkSafe(string(d), p); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic replaces p with data: a fresh temp file in p's directory,
// mode set first, content, sync, rename.
func writeAtomic(p string, data []byte, mode os.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}

// NewDiagnostics makes the directory (0700) for the diagnostics bundle of
// a stage that failed at `at` and returns its path; the bundle's writer
// fills it. `down` keeps bundles for post-mortems.
func (d Dir) NewDiagnostics(stage string, at time.Time) (string, error) {
	rel := diagnosticsDir + "/" + stage + "-" + at.UTC().Format("20060102T150405Z")
	markerMu.Lock()
	defer markerMu.Unlock()
	if _, err := d.Marker(); err != nil {
		return "", err
	}
	if err := d.CheckSafe(); err != nil {
		return "", err
	}
	if err := d.mkdirs(rel); err != nil {
		return "", err
	}
	return d.path(rel), nil
}
