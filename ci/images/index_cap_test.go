package images

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bundle's index.json is read whole into memory, by ReadIndex and by
// LoadOnce (which hashes it): one larger than any bundle's index, or that
// is no regular file, is refused with the file named, before anything is
// loaded.
func TestIndexFileIsCapped(t *testing.T) {
	ref := "example.test/a:v1"
	valid := []byte(`{"images":[{"ref":"` + ref + `","file":"` + ArchiveName(ref) + `"}]}`)
	for _, c := range []struct {
		name string
		make func(p string) error
		want string
	}{
		{"valid JSON padded past the cap", func(p string) error {
			return os.WriteFile(p, append(valid, bytes.Repeat([]byte(" "), maxIndexFile)...), 0o644)
		}, "larger than 1024 KiB"},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o755) }, "not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeBundle(t, []string{ref}, nil, nil)
			p := filepath.Join(dir, IndexFile)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := c.make(p); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadIndex(dir); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("ReadIndex: err = %v, want %q naming %s", err, c.want, p)
			}
			d := &fakeDaemon{has: map[string]bool{}}
			_, err := LoadOnce(context.Background(), d, dir, filepath.Join(t.TempDir(), "loaded.json"), LoadOptions{}, slog.New(slog.DiscardHandler))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("LoadOnce: err = %v, want %q", err, c.want)
			}
			if len(d.inspects) != 0 {
				t.Errorf("the daemon was asked %v for a refused bundle", d.inspects)
			}
		})
	}
}
