package run

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// The rehearsal runs as root and writes into directories the user chose
// (--reports, the bundle): every file there is made through an O_EXCL
// temporary file renamed into place, inside an os.Root of that directory.
// A symbolic link or another file planted at the name is replaced, never
// written through, and nothing is written outside the directory.

// openDir makes dir if it is missing and opens it as a root for writing;
// a path that is a symbolic link or not a directory is refused.
func openDir(dir string) (*os.Root, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("directory %s: %w", dir, err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("directory %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (%v): name a directory, or one that does not exist yet", dir, fi.Mode().Type())
	}
	return os.OpenRoot(dir)
}

// createIn creates name (a path inside root) empty through an O_EXCL
// temporary file renamed into place at once, for a log that is written
// while a step runs.
func createIn(root *os.Root, name string) (*os.File, error) {
	f, tmp, err := tempIn(root, name)
	if err != nil {
		return nil, err
	}
	if err := root.Rename(tmp, name); err != nil {
		f.Close()
		_ = root.Remove(tmp)
		return nil, fmt.Errorf("create %s in %s: %w", name, root.Name(), err)
	}
	return f, nil
}

// writeIn writes name inside root from r: a reader sees the whole file or
// none.
func writeIn(root *os.Root, name string, r io.Reader) error {
	f, tmp, err := tempIn(root, name)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		_ = root.Remove(tmp)
		return fmt.Errorf("write %s in %s: %w", name, root.Name(), err)
	}
	return nil
}

// tempIn opens a new file beside name with O_EXCL under a random name.
func tempIn(root *os.Root, name string) (*os.File, string, error) {
	for range 100 {
		tmp := name + "." + strconv.FormatUint(rand.Uint64(), 36) + ".tmp"
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("create %s in %s: %w", name, root.Name(), err)
		}
		return f, tmp, nil
	}
	return nil, "", fmt.Errorf("create %s in %s: no free temporary name", name, root.Name())
}

// copyInto copies the file src to name inside root.
func copyInto(root *os.Root, src, name string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return writeIn(root, name, in)
}
