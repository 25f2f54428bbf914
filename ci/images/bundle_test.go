package images

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeDaemon holds images by reference; missing ones cannot be pulled (a
// ref in slowPull fails only after that long), and saving fails refs it
// lists.
type fakeDaemon struct {
	mu  sync.Mutex
	has map[string]bool
	// known: refs the daemon resolves to an ID other than fakeID's (a
	// digest-pinned reference it knows as some image).
	known    map[string]string
	slowPull map[string]time.Duration
	// slowCheck: how long making sure of a present image takes.
	slowCheck time.Duration
	failSave  map[string]bool
	saved     []string
	asked     []string   // EnsureImage calls
	inspects  [][]string // ImageIDs calls
	tagged    []string
}

func (f *fakeDaemon) EnsureImage(_ context.Context, ref string, _ time.Duration) error {
	f.mu.Lock()
	f.asked = append(f.asked, ref)
	f.mu.Unlock()
	if !f.has[ref] {
		time.Sleep(f.slowPull[ref])
		return fmt.Errorf("cannot pull %s: no registry", ref)
	}
	time.Sleep(f.slowCheck)
	return nil
}

func (f *fakeDaemon) Save(ctx context.Context, ref string, w io.Writer) error {
	if f.failSave[ref] {
		return fmt.Errorf("docker save %s: no space left on device", ref)
	}
	select { // a save takes a while, long enough to be cancelled
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(5 * time.Millisecond):
	}
	f.mu.Lock()
	f.saved = append(f.saved, ref)
	f.mu.Unlock()
	_, err := io.WriteString(w, "archive of "+ref)
	return err
}

// ImageIDs fails, as docker image inspect does, when any ref is missing.
func (f *fakeDaemon) ImageIDs(_ context.Context, refs ...string) ([]string, error) {
	f.mu.Lock()
	f.inspects = append(f.inspects, refs)
	f.mu.Unlock()
	var ids []string
	for _, ref := range refs {
		if id, ok := f.known[ref]; ok {
			ids = append(ids, id)
			continue
		}
		if !f.has[ref] {
			return nil, fmt.Errorf("no such image: %s", ref)
		}
		ids = append(ids, fakeID(ref))
	}
	return ids, nil
}

func fakeID(ref string) string { return "sha256:" + strings.Repeat("0", 10) + ref }

// Load reads what Save wrote: the archive of a ref loads under that ref;
// one written as "unnamed archive of REF" loads by its ID, as an archive
// without a name (an OCI export) does.
func (f *fakeDaemon) Load(_ context.Context, r io.Reader) ([]string, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if ref, ok := strings.CutPrefix(string(b), "unnamed archive of "); ok {
		return []string{fakeID(ref)}, nil
	}
	ref, ok := strings.CutPrefix(string(b), "archive of ")
	if !ok {
		return nil, fmt.Errorf("not an archive: %q", b)
	}
	f.mu.Lock()
	f.has[ref] = true
	f.mu.Unlock()
	return []string{ref}, nil
}

func (f *fakeDaemon) Tag(_ context.Context, src, dst string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tagged = append(f.tagged, dst)
	f.has[dst] = true
	return nil
}

func refsN(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("example.test/img%02d:v1", i))
	}
	return out
}

// Save writes the index in the order asked for, although archives are
// written several at once.
func TestSaveKeepsTheOrderAskedFor(t *testing.T) {
	refs := refsN(17)
	d := &fakeDaemon{has: map[string]bool{}}
	for _, r := range refs {
		d.has[r] = true
	}
	dir := t.TempDir()
	idx, err := Save(context.Background(), d, refs, dir, time.Second, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	read, err := ReadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range refs {
		if idx.Images[i].Ref != r || read.Images[i].Ref != r {
			t.Fatalf("entry %d is %s (index file: %s), want %s", i, idx.Images[i].Ref, read.Images[i].Ref, r)
		}
		if _, err := os.Stat(filepath.Join(dir, ArchiveName(r))); err != nil {
			t.Errorf("archive of %s: %v", r, err)
		}
	}
}

// Without a registry, the first missing image in order is named, whatever
// else is missing and however long each took to fail, and nothing is saved.
func TestSaveNamesTheFirstMissingImage(t *testing.T) {
	refs := refsN(8)
	// The first missing one fails last: the images are made sure of
	// several at once.
	d := &fakeDaemon{has: map[string]bool{}, slowPull: map[string]time.Duration{refs[3]: 50 * time.Millisecond}}
	for _, r := range refs[:3] {
		d.has[r] = true
	}
	_, err := Save(context.Background(), d, refs, t.TempDir(), time.Second, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), refs[3]) {
		t.Fatalf("err = %v, want one naming %s", err, refs[3])
	}
	if len(d.saved) != 0 {
		t.Errorf("saved %v before finding an image missing", d.saved)
	}
}

// Once an image is found missing, the images after it are not asked for:
// without a registry each would wait out a pull, and none of them can be
// the one named. (The first is missing at once; each present one takes a
// second, so the four begun with it are all that may be asked.)
func TestSaveStopsAskingAfterTheFirstMissingImage(t *testing.T) {
	t.Parallel()
	refs := refsN(17)
	d := &fakeDaemon{has: map[string]bool{}, slowCheck: time.Second}
	for _, r := range refs[1:] {
		d.has[r] = true
	}
	_, err := Save(context.Background(), d, refs, t.TempDir(), time.Second, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), refs[0]) {
		t.Fatalf("err = %v, want one naming %s", err, refs[0])
	}
	if len(d.asked) > archivesAtOnce {
		t.Errorf("asked the daemon for %d images after the first was missing: %v; want at most the %d begun with it",
			len(d.asked), d.asked, archivesAtOnce)
	}
}

// A failing save is the error returned (not the cancellation it caused in
// the others), and leaves no index.
func TestSaveFailureIsTheOneReturned(t *testing.T) {
	refs := refsN(12)
	d := &fakeDaemon{has: map[string]bool{}, failSave: map[string]bool{refs[5]: true}}
	for _, r := range refs {
		d.has[r] = true
	}
	dir := t.TempDir()
	_, err := Save(context.Background(), d, refs, dir, time.Second, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "no space left") || !strings.Contains(err.Error(), refs[5]) {
		t.Fatalf("err = %v, want the failed save of %s", err, refs[5])
	}
	if _, err := os.Stat(filepath.Join(dir, IndexFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an index was written after a failed save (stat: %v)", err)
	}
	if len(d.saved) == len(refs)-1 {
		t.Errorf("every other archive was still saved after the failure: %v", d.saved)
	}
}

// When every image is on the daemon, Save asks for their IDs in one
// command and makes sure of none one by one.
func TestSaveAsksForAllIDsAtOnce(t *testing.T) {
	refs := refsN(17)
	d := &fakeDaemon{has: map[string]bool{}}
	for _, r := range refs {
		d.has[r] = true
	}
	idx, err := Save(context.Background(), d, refs, t.TempDir(), time.Second, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.inspects) != 1 || len(d.asked) != 0 {
		t.Errorf("Save made %d ImageIDs calls and %d EnsureImage calls (%v); want 1 and 0", len(d.inspects), len(d.asked), d.asked)
	}
	for i, e := range idx.Images {
		if e.ID != fakeID(refs[i]) {
			t.Errorf("entry %d (%s) has ID %s, want %s", i, e.Ref, e.ID, fakeID(refs[i]))
		}
	}
}
