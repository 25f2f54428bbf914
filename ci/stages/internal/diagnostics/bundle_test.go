package diagnostics

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// workerDocker has logs for the containers of the map; the journal fails
// for every container.
type workerDocker map[string]string

func (d workerDocker) Logs(_ context.Context, name string) ([]byte, error) {
	l, ok := d[name]
	if !ok {
		return nil, errors.New("no such container: " + name)
	}
	return []byte(l), nil
}

func (d workerDocker) Exec(context.Context, string, io.Reader, ...string) ([]byte, error) {
	return []byte("journal line\n"), errors.New("exit status 1")
}

// TestBundleKeepsGoingAndListsWhatFailed: a worker whose logs cannot be read
// still gets its file, with the failure in it; what could not be collected
// is in errors.txt and returned; a bundle where nothing failed has no
// errors.txt.
func TestBundleKeepsGoingAndListsWhatFailed(t *testing.T) {
	dir := t.TempDir()
	b := New(dir)
	b.Workers(context.Background(), workerDocker{"w1": "booted\n"}, []string{"w1", "w2"})
	for name, want := range map[string][]string{
		"w1": {"booted\n", "--- journalctl -u kubelet ---\njournal line\n", "(journalctl: exit status 1)"},
		"w2": {"(docker logs: no such container: w2)", "journal line"},
	} {
		got, err := os.ReadFile(filepath.Join(dir, "workers", name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(string(got), w) {
				t.Errorf("%s.log = %q, lacks %q", name, got, w)
			}
		}
	}
	if err := b.Close(); err != nil {
		t.Errorf("Close = %v; the workers' failures are in their logs, not errors", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "errors.txt")); !os.IsNotExist(err) {
		t.Errorf("errors.txt written although nothing failed: %v", err)
	}

	b.Note(errors.New("list pods in \"x\": refused"))
	b.Note(nil)
	b.Write("error.txt", []byte("stage failed\n"))
	err := b.Close()
	got, rerr := os.ReadFile(filepath.Join(dir, "errors.txt"))
	if err == nil || rerr != nil || string(got) != "list pods in \"x\": refused\n" {
		t.Errorf("Close = %v, errors.txt = %q (%v); want the noted error in both", err, got, rerr)
	}
}
