// Package atomicfile writes a file whole or not at all, safely in a
// directory others may write to: the content goes to a temporary file
// created with O_EXCL under an unpredictable name in the destination's
// directory (never a fixed "<dst>.partial", which a symbolic link planted
// there would redirect), then is renamed over the destination.
package atomicfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write makes path hold what write writes, with mode perm; on any error
// path is left as it was and the temporary file is removed.
func Write(path string, perm fs.FileMode, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.partial")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Copy writes src's content to dst as Write does.
func Copy(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return Write(dst, perm, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
