package images

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeBundle writes a bundle of refs as the fake daemon reads it back:
// each archive names its image unless unnamed says otherwise.
func writeBundle(t *testing.T, refs []string, unnamed map[string]bool, ids map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	var idx Index
	for _, ref := range refs {
		body := "archive of " + ref
		if unnamed[ref] {
			body = "unnamed " + body
		}
		if err := os.WriteFile(filepath.Join(dir, ArchiveName(ref)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		idx.Images = append(idx.Images, Entry{Ref: ref, File: ArchiveName(ref), ID: ids[ref]})
	}
	if err := WriteIndex(dir, idx); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Archives that load under their reference are not tagged again; an
// archive without a name is tagged with its reference, a digest-pinned one
// (its ID recorded) is named by its ID; the IDs of the named ones are
// asked for in one command.
func TestLoadTagsOnlyWhatLoadedWithoutItsName(t *testing.T) {
	pinned := "example.test/pinned@sha256:" + strings.Repeat("ab", 32)
	refs := []string{"example.test/a:v1", "example.test/b:v1", "example.test/c:v1", pinned}
	dir := writeBundle(t, refs, map[string]bool{"example.test/c:v1": true, pinned: true}, map[string]string{pinned: fakeID(pinned)})
	d := &fakeDaemon{has: map[string]bool{}}
	loaded, err := Load(context.Background(), d, dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.tagged, []string{"example.test/c:v1"}) {
		t.Errorf("tagged %v, want only the unnamed archive's example.test/c:v1", d.tagged)
	}
	// One call for the named ones, one asking for the pinned reference.
	if len(d.inspects) != 2 || !slices.Equal(d.inspects[0], refs[:2]) || !slices.Equal(d.inspects[1], []string{pinned}) {
		t.Errorf("ImageIDs calls: %v, want one for %v and one for %s", d.inspects, refs[:2], pinned)
	}
	for _, ref := range refs[:3] {
		if loaded.Local(ref) != ref {
			t.Errorf("%s loaded as %s", ref, loaded.Local(ref))
		}
	}
	if loaded.Local(pinned) != fakeID(pinned) {
		t.Errorf("digest-pinned %s loaded as %s, want its ID %s", pinned, loaded.Local(pinned), fakeID(pinned))
	}
}

// An archive holding another image than its index entry says is refused,
// named by its reference and file, whether it loaded with a name or not.
func TestLoadRefusesAnArchiveOfAnotherImage(t *testing.T) {
	for _, unnamed := range []bool{false, true} {
		ref := "example.test/a:v1"
		dir := writeBundle(t, []string{ref}, map[string]bool{ref: unnamed}, map[string]string{ref: "sha256:other"})
		d := &fakeDaemon{has: map[string]bool{}}
		_, err := Load(context.Background(), d, dir, slog.New(slog.DiscardHandler))
		if err == nil || !strings.Contains(err.Error(), ref) || !strings.Contains(err.Error(), ArchiveName(ref)) ||
			!strings.Contains(err.Error(), "the index says sha256:other") {
			t.Errorf("unnamed=%v: err = %v, want the archive of %s refused", unnamed, err, ref)
		}
		if len(d.tagged) != 0 {
			t.Errorf("unnamed=%v: tagged %v after a wrong archive", unnamed, d.tagged)
		}
	}
}

// A digest-pinned archive is tied to its pin: refused when the daemon
// knows the pinned reference as another image, whatever the index says;
// accepted when the daemon knows it as the loaded image, or when it does
// not know it and the index records the loaded image's ID; refused when
// nothing ties the two, unless asked to load it unchecked, with a warning
// naming it. (These archives are not tar files: only the daemon and the
// index can tie them; archive_test.go has real ones.)
func TestLoadChecksADigestPinnedArchiveAgainstItsPin(t *testing.T) {
	pinned := "example.test/node:v1@sha256:" + strings.Repeat("cd", 32)
	for _, c := range []struct {
		name     string
		known    map[string]string
		ids      map[string]string
		allow    bool
		err      string
		warnings int
	}{
		{"the daemon knows the pin as another image", map[string]string{pinned: "sha256:pulled-under-the-pin"},
			map[string]string{pinned: fakeID(pinned)}, false, "the archive is not the pinned image", 0},
		{"the daemon knows the pin as the loaded image", map[string]string{pinned: fakeID(pinned)}, nil, false, "", 0},
		{"unknown to the daemon, the index records the ID", nil, map[string]string{pinned: fakeID(pinned)}, false, "", 0},
		{"unknown to the daemon, no ID in the index", nil, nil, false, "--" + AllowUnverifiedPinsFlag, 0},
		{"unknown to the daemon, no ID in the index, loaded unchecked as asked", nil, nil, true, "", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeBundle(t, []string{pinned}, map[string]bool{pinned: true}, c.ids)
			d := &fakeDaemon{has: map[string]bool{}, known: c.known}
			var logs strings.Builder
			loaded, unverified, err := load(context.Background(), d, dir, LoadOptions{AllowUnverifiedPins: c.allow},
				slog.New(slog.NewTextHandler(&logs, nil)))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), pinned) {
					t.Fatalf("err = %v, want the archive of %s refused (%q)", err, pinned, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if loaded.Local(pinned) != fakeID(pinned) {
				t.Errorf("%s loaded as %s, want its ID", pinned, loaded.Local(pinned))
			}
			if got := strings.Count(logs.String(), "loaded a digest-pinned image unchecked"); got != c.warnings {
				t.Errorf("%d warnings that the pin is unverified, want %d; log:\n%s", got, c.warnings, logs.String())
			}
			if len(unverified) != c.warnings {
				t.Errorf("unverified = %v, want %d", unverified, c.warnings)
			}
		})
	}
}
