package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A symbolic link planted where a fixed temporary name would be does not
// redirect the write, and a failed write leaves nothing behind.
func TestWriteIgnoresAPlantedPartialFile(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "image.tar")
	if err := os.Symlink(victim, dst+".partial"); err != nil {
		t.Fatal(err)
	}
	if err := Write(dst, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "image"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the planted link's target now holds %q", b)
	}
	fi, err := os.Lstat(dst)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
		t.Fatalf("%s: %v, %v; want a regular file of mode 0644", dst, fi, err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "image" {
		t.Errorf("%s = %q", dst, b)
	}
	boom := errors.New("boom")
	if err := Write(dst, 0o644, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); !errors.Is(err, boom) {
		t.Errorf("a failed write: %v", err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "image" {
		t.Errorf("a failed write changed %s to %q", dst, b)
	}
	if es, _ := os.ReadDir(dir); len(es) != 2 {
		t.Errorf("left behind: %v (want the file and the planted link)", es)
	}
}
