package images

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"path"
	"strings"
)

// The check reads an archive's entries once, as a stream; the daemon
// unpacks the same archive its own way. They must read the same bytes
// under each name the check relies on, or the check vouches for one image
// while the daemon loads another. The loaders differ where a crafted
// archive can make them differ:
//
//   - Docker's classic loader unpacks every entry into a temporary
//     directory and then opens manifest.json and the config it names
//     there (moby v20.10.24 image/tarexport/load.go:43-60 chrootarchive
//     Untar, :73-77 safePath and ReadFile): of two entries of one name the
//     last wins, "/manifest.json" lands on manifest.json, a symlink is
//     followed, and an entry below a symlinked directory is written
//     through it;
//   - containerd's importer (the containerd image store; moby
//     docker-v29.7.2 vendors containerd v2.3.3,
//     core/images/archive/importer.go:86-127) reads the stream, keeps the
//     last manifest.json and index.json (path.Clean of the name, so
//     "/index.json" is not index.json there), ignores entries that are not
//     regular files and addresses every other file by the digest of its
//     own bytes (onUntarBlob, :248-256).
//
// So an entry the check would pass over — a second one of a name, an
// absolute or "..", an oversized or non-regular one under a metadata name,
// one below a link — is refused instead, naming the entry; the one
// behaviour every loader shares is then the check's. The archives daemons
// write have none of these: containerd's exporter writes each name once
// (containerd v2.3.3 core/images/archive/exporter.go:637-641, as moby
// docker-v29.7.2 vendors it), Docker's classic save tars a directory it
// filled (moby v20.10.24 image/tarexport/save.go:191,283). Layers are still
// passed over unread: the daemon checks them against the config
// (doc.go).

// The archive's files kept to read: manifests, indexes and configs are
// JSON of a few KB (kindest/node's config ~10 KB); a layer (tar, gzip,
// zstd) is told apart by its first bytes and passed over, whatever its
// size. The caps keep a crafted archive from filling memory.
const (
	maxMetadataFile  = 4 << 20
	maxMetadataTotal = 64 << 20
	sniffLen         = 64
)

// archiveFiles are an archive's metadata files by cleaned name (kept),
// and the blobs passed over as layers (passed): a blob the check needs
// that was passed over is an error, never "absent".
type archiveFiles struct {
	kept   map[string][]byte
	passed map[string]bool
}

// read returns the kept file name: nil when the archive has no entry of
// that name, an error when it has one the check did not read.
func (f archiveFiles) read(name string) ([]byte, error) {
	if b, ok := f.kept[name]; ok {
		return b, nil
	}
	if f.passed[name] {
		return nil, fmt.Errorf("entry %q is in the archive but was passed over as a layer (not JSON, "+
			"or larger than %d MiB): the check cannot read what the daemon would", name, maxMetadataFile>>20)
	}
	return nil, nil
}

// entryKind is what the check makes of an entry by its cleaned name.
type entryKind int

const (
	otherEntry entryKind = iota // a layer or a file the check does not read
	fixedEntry                  // manifest.json, index.json, oci-layout, <hex>.json
	blobEntry                   // blobs/<alg>/<encoded>: a manifest, index or config, or a layer
)

// kindOf: the layout's own files (image-spec v1.1.1 image-layout.md:
// oci-layout, index.json, blobs/<alg>/<encoded>), Docker's manifest.json,
// and Docker 20.10's "<hex>.json" config at the top.
func kindOf(name string) entryKind {
	switch {
	case name == "manifest.json" || name == "index.json" || name == "oci-layout":
		return fixedEntry
	case strings.HasPrefix(name, "blobs/"):
		if strings.Count(name, "/") == 2 {
			return blobEntry
		}
		return otherEntry
	case !strings.Contains(name, "/") && strings.HasSuffix(name, ".json"):
		return fixedEntry
	}
	return otherEntry
}

// readEntries reads the archive's entries, refusing what the loaders
// would read differently (see above), and keeps its metadata files.
func readEntries(r io.Reader) (archiveFiles, error) {
	files := archiveFiles{kept: map[string][]byte{}, passed: map[string]bool{}}
	seen := map[string]bool{}
	links := map[string]bool{}
	total := int64(0)
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, refuseBelowLinks(seen, links)
		}
		if err != nil {
			return archiveFiles{}, fmt.Errorf("%w: %w", errNotImageArchive, err)
		}
		name, err := entryName(h.Name)
		if err != nil {
			return archiveFiles{}, err
		}
		if seen[name] {
			return archiveFiles{}, fmt.Errorf(
				"entry %q: a second entry named %s: the check would read one and the daemon load the other", h.Name, name)
		}
		seen[name] = true
		if h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink {
			links[name] = true
		}
		kind := kindOf(name)
		if kind == otherEntry {
			continue
		}
		if h.Typeflag != tar.TypeReg {
			return archiveFiles{}, fmt.Errorf("entry %q: %s is %s, not a regular file: "+
				"an image's metadata and blobs are files", h.Name, name, typeName(h.Typeflag))
		}
		if h.Size > maxMetadataFile {
			if kind == fixedEntry {
				return archiveFiles{}, fmt.Errorf("entry %q: %d bytes, more than the %d MiB an image's metadata file takes",
					h.Name, h.Size, maxMetadataFile>>20)
			}
			files.passed[name] = true // a layer
			continue
		}
		head := make([]byte, min(h.Size, sniffLen))
		if _, err := io.ReadFull(tr, head); err != nil {
			return archiveFiles{}, fmt.Errorf("entry %q: %w", h.Name, err)
		}
		if t := bytes.TrimLeft(head, " \t\r\n"); kind == blobEntry && (len(t) == 0 || (t[0] != '{' && t[0] != '[')) {
			files.passed[name] = true // not JSON: a layer
			continue
		}
		if total += h.Size; total > maxMetadataTotal {
			return archiveFiles{}, fmt.Errorf("more than %d MiB of manifests and configs", maxMetadataTotal>>20)
		}
		rest, err := io.ReadAll(tr)
		if err != nil {
			return archiveFiles{}, fmt.Errorf("entry %q: %w", h.Name, err)
		}
		files.kept[name] = append(head, rest...)
	}
}

// entryName is the cleaned name of an entry: never absolute, never
// leaving the archive.
func entryName(raw string) (string, error) {
	if path.IsAbs(raw) {
		return "", fmt.Errorf("entry %q: an absolute name (an image archive's entries are relative)", raw)
	}
	name := path.Clean(raw)
	if name == ".." || strings.HasPrefix(name, "../") {
		return "", fmt.Errorf("entry %q: a name outside the archive", raw)
	}
	return name, nil
}

// refuseBelowLinks refuses an entry below a symlink or hard link entry: a
// loader that unpacks would write it through the link, elsewhere than
// its name says.
func refuseBelowLinks(names, links map[string]bool) error {
	if len(links) == 0 {
		return nil
	}
	for name := range names {
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if links[dir] {
				return fmt.Errorf("entry %q: below the link entry %s, so unpacking it would write elsewhere", name, dir)
			}
		}
	}
	return nil
}

func typeName(flag byte) string {
	switch flag {
	case tar.TypeSymlink:
		return "a symlink"
	case tar.TypeLink:
		return "a hard link"
	case tar.TypeDir:
		return "a directory"
	}
	return fmt.Sprintf("an entry of tar type %q", flag)
}
