package registry

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Remove takes away what Start makes and the directory with it, but never a
// file it did not make: the directory then stays and is named.
func TestRemove(t *testing.T) {
	made := func(t *testing.T) Layout {
		l := LayoutFor(t.TempDir())
		if err := os.MkdirAll(filepath.Join(l.storage(), "docker", "registry"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{l.config(), l.pidFile(), l.log()} {
			if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return l
	}
	t.Run("only its own files", func(t *testing.T) {
		l := made(t)
		if err := Remove(l); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(l.Dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there (%v)", l.Dir, err)
		}
	})
	t.Run("a file it did not make", func(t *testing.T) {
		l := made(t)
		other := filepath.Join(l.Dir, "notes.txt")
		if err := os.WriteFile(other, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := Remove(l)
		if err == nil || !strings.Contains(err.Error(), "notes.txt") {
			t.Fatalf("Remove = %v, want an error naming notes.txt", err)
		}
		if _, err := os.Stat(other); err != nil {
			t.Errorf("the other file is gone: %v", err)
		}
		if _, err := os.Stat(l.storage()); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("storage still there (%v)", err)
		}
	})
}
