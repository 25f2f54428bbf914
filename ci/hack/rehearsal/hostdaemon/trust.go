package hostdaemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// checkTrustedDir fails unless dir and every directory above it is a real
// directory (no symlink), owned by root or by this process's user, and not
// writable by group or others: then no other user can put or swap anything
// on the way to what root writes or runs there. A root-owned directory with
// the sticky bit (such as /tmp) is accepted on the way but not as dir: in it
// only an entry's owner may replace that entry, and the next component is
// checked on its own.
func checkTrustedDir(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%s: not an absolute path", dir)
	}
	dir = filepath.Clean(dir)
	p := "/"
	for _, c := range append([]string{""}, strings.Split(strings.TrimPrefix(dir, "/"), "/")...) {
		p = filepath.Join(p, c)
		if err := checkTrustedComponent(p, p != dir); err != nil {
			return err
		}
	}
	return nil
}

func checkTrustedComponent(p string, onTheWay bool) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link: root would follow it wherever it points; name the real directory", p)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", p)
	case !ok:
		return fmt.Errorf("%s: no owner information", p)
	case st.Uid != 0 && int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%s is owned by uid %d, not by root: that user could change what root writes or runs below it; "+
			"choose a directory root owns", p, st.Uid)
	case fi.Mode().Perm()&0o022 != 0 && !(onTheWay && st.Uid == 0 && fi.Mode()&fs.ModeSticky != 0):
		return fmt.Errorf("%s is writable by group or others (mode %v): another user could swap what root writes "+
			"or runs below it; chmod go-w it or choose another directory", p, fi.Mode().Perm())
	}
	return nil
}

// makeTrustedDirs makes dir and any missing directory above it (mode
// 0755), each only below a directory that passed the check, then checks the
// whole path (checkTrustedDir).
func makeTrustedDirs(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%s: not an absolute path", dir)
	}
	dir = filepath.Clean(dir)
	if parent := filepath.Dir(dir); parent != dir {
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			if err := makeTrustedDirs(parent); err != nil {
				return err
			}
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("create %s: %w", dir, err)
			}
		}
	}
	return checkTrustedDir(dir)
}

// writeFileAtomic writes data to dir/name through a temporary file made
// with O_EXCL in dir (os.CreateTemp), then renamed over name: nothing that
// existed at dir/name (a symlink, a file another user made) is written
// through, and a reader never sees half a file. dir must be checked by the
// caller (checkTrustedDir).
func writeFileAtomic(dir, name string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(dir, name), err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}
