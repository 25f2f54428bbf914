package images

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// tarEntry is one entry of a hand-made archive, in the order given.
type tarEntry struct {
	name string
	body []byte
	typ  byte   // tar.TypeReg when 0
	link string // a symlink's target
}

func tarEntries(t *testing.T, entries []tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: e.typ, Linkname: e.link}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write(e.body)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// genuineEntries are the Docker 20.10 recording's files, in name order.
func genuineEntries(t *testing.T) []tarEntry {
	files := recorded(t, recordedDocker)
	var out []tarEntry
	for _, n := range slices.Sorted(maps.Keys(files)) {
		out = append(out, tarEntry{name: n, body: files[n]})
	}
	return out
}

// otherImage is another image's config (the recorded one with one letter
// changed, named by its digest as Docker 20.10 names configs) and the
// manifest.json that names it: what a crafted archive smuggles in.
func otherImage(t *testing.T) (config tarEntry, manifest []byte, id string) {
	files := recorded(t, recordedDocker)
	genuine := strings.TrimPrefix(recordedConfig, "sha256:") + ".json"
	b := bytes.Replace(files[genuine], []byte("pin-recording"), []byte("pin-recordinG"), 1)
	id = digestOf(b)
	name := strings.TrimPrefix(id, "sha256:") + ".json"
	manifest = bytes.Replace(files["manifest.json"], []byte(genuine), []byte(name), 1)
	return tarEntry{name: name, body: b}, manifest, id
}

// smuggled are the archives: the recorded image, and after it a
// second manifest.json naming another image that the check passed over
// and Docker's loader reads (the last entry of a name wins when it
// unpacks).
func smuggled(t *testing.T) map[string][]tarEntry {
	config, manifest, _ := otherImage(t)
	with := func(extra ...tarEntry) []tarEntry {
		return append(append(genuineEntries(t), config), extra...)
	}
	padded := append(bytes.Repeat([]byte(" "), 100), manifest...)
	big := append(slices.Clone(manifest), bytes.Repeat([]byte(" "), maxMetadataFile)...)
	return map[string][]tarEntry{
		"a second manifest.json padded with 100 leading spaces": with(tarEntry{name: "manifest.json", body: padded}),
		"a second manifest.json named /manifest.json":           with(tarEntry{name: "/manifest.json", body: manifest}),
		"a second manifest.json named ./manifest.json":          with(tarEntry{name: "./manifest.json", body: manifest}),
		"a second manifest.json larger than 4 MiB":              with(tarEntry{name: "manifest.json", body: big}),
		"a second manifest.json that is a symlink": with(tarEntry{name: "other/m", body: manifest},
			tarEntry{name: "manifest.json", typ: tar.TypeSymlink, link: "other/m"}),
	}
}

// A check that passes over what the daemon reads vouches for an image the
// daemon does not load: every entry the loaders may read otherwise than
// the check is refused, and the error names the entry.
func TestReadArchiveRefusesEntriesTheDaemonWouldReadOtherwise(t *testing.T) {
	config, manifest, _ := otherImage(t)
	oci := recorded(t, recordedContainerd)
	ociEntries := func(edit func(map[string][]byte) []tarEntry) []tarEntry {
		files := maps.Clone(oci)
		extra := edit(files)
		var out []tarEntry
		for _, n := range slices.Sorted(maps.Keys(files)) {
			out = append(out, tarEntry{name: n, body: files[n]})
		}
		return append(out, extra...)
	}
	manifestBlob := blobPath(recordedManifest)
	cases := map[string]struct {
		entries []tarEntry
		entry   string // the name the error must quote
	}{}
	for name, entries := range smuggled(t) {
		cases[name] = struct {
			entries []tarEntry
			entry   string
		}{entries, entries[len(entries)-1].name}
	}
	for name, c := range map[string]struct {
		entries []tarEntry
		entry   string
	}{
		"the only manifest.json a symlink, beside a genuine index.json": {ociEntries(func(f map[string][]byte) []tarEntry {
			delete(f, "manifest.json")
			return []tarEntry{config, {name: "other/m", body: manifest}, {name: "manifest.json", typ: tar.TypeSymlink, link: "other/m"}}
		}), "manifest.json"},
		"manifest.json a directory": {
			append(slices.DeleteFunc(genuineEntries(t), func(e tarEntry) bool { return e.name == "manifest.json" }),
				tarEntry{name: "manifest.json/", typ: tar.TypeDir}), "manifest.json/"},
		"a second index.json, padded": {ociEntries(func(f map[string][]byte) []tarEntry {
			return []tarEntry{{name: "index.json", body: append(bytes.Repeat([]byte("\n"), 100), f["index.json"]...)}}
		}), "index.json"},
		"oci-layout a hard link": {ociEntries(func(f map[string][]byte) []tarEntry {
			delete(f, "oci-layout")
			return []tarEntry{{name: "oci-layout", typ: tar.TypeLink, link: "index.json"}}
		}), "oci-layout"},
		"a blob twice": {ociEntries(func(f map[string][]byte) []tarEntry {
			return []tarEntry{{name: manifestBlob, body: f[manifestBlob]}}
		}), manifestBlob},
		"an entry leaving the archive": {append(genuineEntries(t), tarEntry{name: "../manifest.json", body: manifest}), "../manifest.json"},
		"the manifest blob padded, so passed over as a layer": {ociEntries(func(f map[string][]byte) []tarEntry {
			b := f[manifestBlob]
			delete(f, manifestBlob)
			return []tarEntry{{name: manifestBlob, body: append(bytes.Repeat([]byte(" "), 100), b...)}}
		}), manifestBlob},
		"a blob written through a symlinked directory": {ociEntries(func(f map[string][]byte) []tarEntry {
			return []tarEntry{{name: "blobs/sha512", typ: tar.TypeSymlink, link: "sha256"},
				{name: "blobs/sha512/" + strings.Repeat("0", 128), body: []byte("{}")}}
		}), "blobs/sha512/" + strings.Repeat("0", 128)},
	} {
		cases[name] = c
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			img, err := readArchive(bytes.NewReader(tarEntries(t, c.entries)))
			if err == nil {
				t.Fatalf("read as %s, want the entry %q refused", img.Describe(), c.entry)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", c.entry)) {
				t.Errorf("err = %v, want it to name the entry %q", err, c.entry)
			}
		})
	}
}

// Layers too large to keep, links where Docker 25's docker save puts its
// legacy layer paths, directory entries and "./" names are an archive a
// daemon writes: still read.
func TestReadArchiveKeepsWhatDaemonsWrite(t *testing.T) {
	entries := []tarEntry{{name: "blobs/", typ: tar.TypeDir}, {name: "blobs/sha256/", typ: tar.TypeDir}}
	for _, e := range genuineEntries(t) {
		entries = append(entries, tarEntry{name: "./" + e.name, body: e.body})
	}
	layer := "blobs/sha256/" + strings.Repeat("4", 64)
	entries = append(entries,
		tarEntry{name: layer, body: bytes.Repeat([]byte{0}, maxMetadataFile+1)},
		tarEntry{name: strings.Repeat("4", 64) + "/", typ: tar.TypeDir},
		tarEntry{name: strings.Repeat("4", 64) + "/layer.tar", typ: tar.TypeSymlink, link: "../" + layer})
	img, err := readArchive(bytes.NewReader(tarEntries(t, entries)))
	if err != nil || img.Config != recordedConfig {
		t.Errorf("readArchive = %+v, %v; want config %s", img, err, recordedConfig)
	}
}

// classicDaemon loads an archive as Docker 20.10's classic loader does
// (moby v20.10.24 image/tarexport/load.go:43-77): it unpacks every entry
// (an absolute name lands inside the directory, the last entry of a name
// wins, symlinks are followed), opens manifest.json and the config it
// names, and gives the image the config's digest as its ID. It knows no
// reference by digest (a loaded image has none).
type classicDaemon struct {
	mu     sync.Mutex
	loads  int
	tagged []string
	loaded map[string]bool
}

func (c *classicDaemon) EnsureImage(context.Context, string, time.Duration) error { return nil }
func (c *classicDaemon) Save(context.Context, string, io.Writer) error {
	return fmt.Errorf("not used")
}

func (c *classicDaemon) Load(_ context.Context, r io.Reader) ([]string, error) {
	files, links := map[string][]byte{}, map[string]string{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		name := path.Clean(strings.TrimLeft(h.Name, "/"))
		delete(files, name)
		delete(links, name)
		switch h.Typeflag {
		case tar.TypeReg:
			files[name], _ = io.ReadAll(tr)
		case tar.TypeSymlink:
			links[name] = path.Join(path.Dir(name), h.Linkname)
		}
	}
	open := func(name string) ([]byte, error) {
		for range 8 {
			if to, ok := links[name]; ok {
				name = to
				continue
			}
			if b, ok := files[name]; ok {
				return b, nil
			}
			break
		}
		return nil, fmt.Errorf("open %s: no such file", name)
	}
	m, err := open("manifest.json")
	if err != nil {
		return nil, err
	}
	var items []struct{ Config string }
	if err := json.Unmarshal(m, &items); err != nil || len(items) != 1 {
		return nil, fmt.Errorf("manifest.json: %v", err)
	}
	config, err := open(path.Clean(items[0].Config))
	if err != nil {
		return nil, err
	}
	id := digestOf(config)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loads++
	if c.loaded == nil {
		c.loaded = map[string]bool{}
	}
	c.loaded[id] = true
	return []string{id}, nil
}

func (c *classicDaemon) Tag(_ context.Context, _, dst string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tagged = append(c.tagged, dst)
	return nil
}

func (c *classicDaemon) ImageIDs(_ context.Context, refs ...string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range refs {
		if !c.loaded[r] {
			return nil, fmt.Errorf("no such image: %s", r)
		}
	}
	return refs, nil
}

// The try: a bundle whose index records the genuine image, its
// archive carrying a second manifest.json of another image. Load refuses
// it before loading anything, whether the reference is pinned or tagged;
// today's check read the genuine entry, the loader the other, and the
// pinned reference was named after the other image.
func TestLoadRefusesASmuggledManifest(t *testing.T) {
	_, _, otherID := otherImage(t)
	for name, entries := range smuggled(t) {
		for _, ref := range []string{"example.test/pin-recording:v1@sha256:" + strings.Repeat("e", 64), "example.test/pin-recording:v1"} {
			t.Run(name+"/"+ref, func(t *testing.T) {
				// The classic loader reads the smuggled manifest: the recipe works.
				d := &classicDaemon{}
				if ids, err := d.Load(context.Background(), bytes.NewReader(tarEntries(t, entries))); err != nil || ids[0] != otherID {
					t.Fatalf("the fake loader read %v, %v; want the other image %s", ids, err, otherID)
				}
				d = &classicDaemon{}
				dir := t.TempDir()
				e := Entry{Ref: ref, File: ArchiveName(ref), Config: recordedConfig}
				if err := os.WriteFile(filepath.Join(dir, e.File), tarEntries(t, entries), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := WriteIndex(dir, Index{Images: []Entry{e}}); err != nil {
					t.Fatal(err)
				}
				loaded, err := Load(context.Background(), d, dir, slog.New(slog.DiscardHandler))
				if err == nil {
					t.Fatalf("loaded %s as %s (the other image is %s), want the archive refused", ref, loaded.Local(ref), otherID)
				}
				if !strings.Contains(err.Error(), e.File) || !strings.Contains(err.Error(), "manifest.json") {
					t.Errorf("err = %v, want it to name the archive %s and the entry", err, e.File)
				}
				if d.loads != 0 || len(d.tagged) != 0 {
					t.Errorf("%d loads, tagged %v before the refusal", d.loads, d.tagged)
				}
			})
		}
	}
}
