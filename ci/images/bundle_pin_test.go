package images

import (
	"bytes"
	"context"
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

// archiveDaemon loads real archives as a daemon that keeps no digest for
// a loaded image would: the ID is the config's digest (the classic store)
// or, with containerd, the digest index.json names (the containerd store,
// which here does not resolve the pinned reference either, as for an
// unnamed load). It saves the archive it was given for every reference.
type archiveDaemon struct {
	containerd bool
	archive    []byte // what Save writes
	id         string // what ImageIDs answers for a saved reference
	mu         sync.Mutex
	loads      int
	loaded     map[string]bool
}

func (a *archiveDaemon) EnsureImage(context.Context, string, time.Duration) error { return nil }

func (a *archiveDaemon) Save(_ context.Context, _ string, w io.Writer) error {
	_, err := w.Write(a.archive)
	return err
}

func (a *archiveDaemon) Load(_ context.Context, r io.Reader) ([]string, error) {
	img, err := readArchive(r)
	if err != nil {
		return nil, err
	}
	id := img.Config
	if a.containerd && img.Manifest != "" {
		id = img.Manifest
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.loads++
	if a.loaded == nil {
		a.loaded = map[string]bool{}
	}
	a.loaded[id] = true
	return []string{id}, nil
}

func (a *archiveDaemon) Tag(context.Context, string, string) error { return nil }

func (a *archiveDaemon) ImageIDs(_ context.Context, refs ...string) ([]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, r := range refs {
		switch {
		case a.loaded[r]:
			out = append(out, r)
		case a.id != "" && !strings.Contains(r, "@"):
			out = append(out, a.id)
		default:
			return nil, fmt.Errorf("no such image: %s", r)
		}
	}
	return out, nil
}

// pinBundle writes a bundle of one entry whose archive is files.
func pinBundle(t *testing.T, e Entry, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	e.File = ArchiveName(e.Ref)
	if err := os.WriteFile(filepath.Join(dir, e.File), tarOf(t, files), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteIndex(dir, Index{Images: []Entry{e}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A digest-pinned reference loaded from a recorded archive, on a daemon
// that gives the loaded image no digest: tied to its pin by the archive
// (it holds the pinned manifest or index) or by the index (it records the
// image, as labctl images save and the Dagger module do); refused before
// anything is loaded when neither ties it, naming the image, the pin, what
// the archive holds and the flag; loaded with the flag, reported unchecked.
func TestLoadTiesAPinnedArchiveToItsPin(t *testing.T) {
	withIndex, indexDigest := indexed(t)
	other := "sha256:" + strings.Repeat("e", 64)
	pinned := func(d string) string { return "example.test/pin-recording:v1@" + d }
	for _, c := range []struct {
		name  string
		entry Entry
		files map[string][]byte
		allow bool
		err   string // "" loads
		unver bool
	}{
		{"the archive holds the pinned manifest", Entry{Ref: pinned(recordedManifest)}, recorded(t, recordedContainerd), false, "", false},
		{"the archive holds the pinned index", Entry{Ref: pinned(indexDigest)}, withIndex, false, "", false},
		{"Dagger-shaped archive, the index records its config and manifest",
			Entry{Ref: pinned(other), Config: recordedConfig, Manifest: recordedManifest}, daggerShaped(t), false, "", false},
		{"docker save archive, the index records the ID", Entry{Ref: pinned(other), ID: recordedConfig},
			recorded(t, recordedDocker), false, "", false},
		{"OCI archive without the pin, nothing recorded", Entry{Ref: pinned(other)}, daggerShaped(t), false,
			"config " + recordedConfig + ", manifest " + recordedManifest + ", and no manifest or index of digest " + other, false},
		{"docker save archive, nothing recorded", Entry{Ref: pinned(other)}, recorded(t, recordedDocker), false, "no OCI index.json", false},
		{"nothing recorded, loaded unchecked as asked", Entry{Ref: pinned(other)}, recorded(t, recordedDocker), true, "", true},
		{"the index records another image", Entry{Ref: pinned(recordedManifest), Config: other},
			recorded(t, recordedContainerd), false, "the index says " + other, false},
		{"the flag does not pass another recorded image", Entry{Ref: pinned(other), ID: other},
			recorded(t, recordedDocker), true, "the index says " + other, false},
	} {
		for _, containerd := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/containerd=%v", c.name, containerd), func(t *testing.T) {
				dir := pinBundle(t, c.entry, c.files)
				d := &archiveDaemon{containerd: containerd}
				var logs bytes.Buffer
				loaded, unverified, err := load(context.Background(), d, dir, LoadOptions{AllowUnverifiedPins: c.allow},
					slog.New(slog.NewTextHandler(&logs, nil)))
				if c.err != "" {
					if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), c.entry.Ref) ||
						!strings.Contains(strings.ToLower(err.Error()), "re-create the bundle") {
						t.Fatalf("err = %v, want %s refused: %q", err, c.entry.Ref, c.err)
					}
					if d.loads != 0 {
						t.Errorf("%d archives loaded before the refusal", d.loads)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want := recordedConfig
				if containerd && c.files["index.json"] != nil {
					img, _ := readArchive(bytes.NewReader(tarOf(t, c.files)))
					want = img.Manifest // the digest index.json names
				}
				if got := loaded.Local(c.entry.Ref); got != want {
					t.Errorf("%s loaded as %s, want %s", c.entry.Ref, got, want)
				}
				if (len(unverified) == 1) != c.unver || strings.Contains(logs.String(), "unchecked") != c.unver {
					t.Errorf("unverified = %v, want unchecked %v; log:\n%s", unverified, c.unver, logs.String())
				}
			})
		}
	}
	// The refusal names the flag that loads anyway.
	dir := pinBundle(t, Entry{Ref: pinned(other)}, recorded(t, recordedDocker))
	if _, err := Load(context.Background(), &archiveDaemon{}, dir, slog.New(slog.DiscardHandler)); err == nil ||
		!strings.Contains(err.Error(), "--"+AllowUnverifiedPinsFlag) {
		t.Errorf("err = %v, want it to name --%s", err, AllowUnverifiedPinsFlag)
	}
}

// labctl images save records what the archive it wrote names, next to the
// daemon's ID, and refuses an archive that is not the image the daemon
// has under the reference; the bundle then loads a pinned reference.
func TestSaveRecordsTheArchivesDigests(t *testing.T) {
	ref := "example.test/pin-recording:v1"
	d := &archiveDaemon{archive: tarOf(t, recorded(t, recordedContainerd)), id: recordedConfig}
	dir := t.TempDir()
	idx, err := Save(context.Background(), d, []string{ref}, dir, time.Second, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if e := idx.Images[0]; e.ID != recordedConfig || e.Config != recordedConfig || e.Manifest != recordedManifest {
		t.Errorf("entry %+v, want ID and config %s, manifest %s", e, recordedConfig, recordedManifest)
	}
	d.id = "sha256:" + strings.Repeat("f", 64)
	if _, err := Save(context.Background(), d, []string{ref}, t.TempDir(), time.Second, slog.New(slog.DiscardHandler)); err == nil ||
		!strings.Contains(err.Error(), "not image "+d.id) {
		t.Errorf("an archive of another image than the daemon's saved: %v", err)
	}
}

// RecordArchives fills the digests of a bundle another tool fetched (the
// Dagger module), and refuses a file it cannot read as an image archive.
func TestRecordArchives(t *testing.T) {
	ref := "example.test/pin-recording:v1@" + recordedManifest
	dir := pinBundle(t, Entry{Ref: ref}, daggerShaped(t))
	idx, err := ReadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := RecordArchives(dir, idx)
	if err != nil {
		t.Fatal(err)
	}
	if e := got.Images[0]; e.Config != recordedConfig || e.Manifest != recordedManifest || e.ID != "" || idx.Images[0].Config != "" {
		t.Errorf("recorded %+v (input now %+v)", e, idx.Images[0])
	}
	if err := os.WriteFile(filepath.Join(dir, idx.Images[0].File), []byte("not a tar"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RecordArchives(dir, idx); err == nil || !strings.Contains(err.Error(), ref) {
		t.Errorf("a file that is no image archive recorded: %v", err)
	}
}

// LoadOnce trusts its record only for a load that checked pins: not one
// that loaded a pin unchecked, on a run without the flag, nor a record an
// earlier labctl wrote (which only warned).
func TestLoadOnceRecordOfPins(t *testing.T) {
	ref := "example.test/pin-recording:v1@sha256:" + strings.Repeat("e", 64)
	dir := pinBundle(t, Entry{Ref: ref}, recorded(t, recordedDocker))
	record := filepath.Join(t.TempDir(), "loaded.json")
	d := &archiveDaemon{}
	log := slog.New(slog.DiscardHandler)
	for i, allow := range []bool{true, true} {
		if _, err := LoadOnce(context.Background(), d, dir, record, LoadOptions{AllowUnverifiedPins: allow}, log); err != nil {
			t.Fatalf("LoadOnce #%d with the flag: %v", i+1, err)
		}
	}
	if d.loads != 1 {
		t.Errorf("%d loads with the flag twice, want 1 (the record trusted)", d.loads)
	}
	if _, err := LoadOnce(context.Background(), d, dir, record, LoadOptions{}, log); err == nil || !strings.Contains(err.Error(), ref) {
		t.Errorf("without the flag, the record of an unchecked load was trusted: %v", err)
	}
	// The same load recorded by an earlier labctl: no "pins".
	b, _ := os.ReadFile(record)
	old := strings.Replace(string(b), `,"unverified":["`+ref+`"],"pins":"`+pinsChecked+`"`, "", 1)
	if old == string(b) {
		t.Fatalf("record %s: not as expected", b)
	}
	os.WriteFile(record, []byte(old), 0o644)
	if _, err := LoadOnce(context.Background(), d, dir, record, LoadOptions{}, log); err == nil {
		t.Errorf("an earlier labctl's record (%s) was trusted", old)
	}
}
