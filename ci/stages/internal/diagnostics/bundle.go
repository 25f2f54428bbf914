package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Bundle is one diagnostics directory being written: every file it could
// not collect is an error kept for errors.txt, and the rest goes on.
type Bundle struct {
	dir  string
	errs []error
}

// New starts a bundle in dir (a private directory the caller made).
func New(dir string) *Bundle { return &Bundle{dir: dir} }

// Note keeps err (nil: nothing) for errors.txt.
func (b *Bundle) Note(err error) {
	if err != nil {
		b.errs = append(b.errs, err)
	}
}

// Write writes data to the file rel of the bundle, noting what fails.
func (b *Bundle) Write(rel string, data []byte) {
	p := filepath.Join(b.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		b.Note(err)
		return
	}
	b.Note(os.WriteFile(p, data, 0o600))
}

// Close writes errors.txt, one line per piece that could not be collected,
// and returns them joined; nil (and no errors.txt) when nothing failed.
func (b *Bundle) Close() error {
	if len(b.errs) == 0 {
		return nil
	}
	var msg strings.Builder
	for _, err := range b.errs {
		msg.WriteString(err.Error() + "\n")
	}
	b.Write("errors.txt", []byte(msg.String()))
	return errors.Join(b.errs...)
}

// Docker is what the bundle reads of a worker container.
type Docker interface {
	Logs(ctx context.Context, name string) ([]byte, error)
	Exec(ctx context.Context, container string, stdin io.Reader, cmd ...string) ([]byte, error)
}

// Workers writes docker logs and the kubelet's journal of each worker
// container named.
func (b *Bundle) Workers(ctx context.Context, d Docker, names []string) {
	for _, n := range names {
		var w strings.Builder
		out, err := d.Logs(ctx, n)
		w.Write(out)
		if err != nil {
			fmt.Fprintf(&w, "\n(docker logs: %v)\n", err)
		}
		j, err := d.Exec(ctx, n, nil, "journalctl", "--no-pager", "-u", "kubelet", "-n", "300")
		w.WriteString("\n--- journalctl -u kubelet ---\n")
		w.Write(j)
		if err != nil {
			fmt.Fprintf(&w, "\n(journalctl: %v)\n", err)
		}
		b.Write(filepath.Join("workers", n+".log"), []byte(w.String()))
	}
}
