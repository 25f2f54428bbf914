package registry

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// archive is an image archive file opened for pushing: each regular
// entry's bytes as a section of the file, so layers are streamed, never
// held in memory.
type archive struct {
	f       *os.File
	entries map[string]*io.SectionReader
}

// maxJSON caps the manifests, indexes and configs read into memory.
const maxJSON = 16 << 20

func openArchive(p string) (*archive, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	a := &archive{f: f, entries: map[string]*io.SectionReader{}}
	links := map[string]string{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("image archive %s: %w", p, err)
		}
		name := path.Clean(h.Name)
		switch h.Typeflag {
		case tar.TypeReg:
			// tar.Reader reads no further than a header: the file's
			// offset is where the entry's bytes start.
			off, err := f.Seek(0, io.SeekCurrent)
			if err != nil {
				f.Close()
				return nil, err
			}
			a.entries[name] = io.NewSectionReader(f, off, h.Size)
		case tar.TypeSymlink:
			links[name] = path.Clean(path.Join(path.Dir(name), h.Linkname))
		case tar.TypeLink:
			links[name] = path.Clean(h.Linkname)
		}
	}
	for name, target := range links {
		for i := 0; i < 8 && a.entries[target] == nil && links[target] != ""; i++ {
			target = links[target]
		}
		if s := a.entries[target]; s != nil {
			a.entries[name] = s
		}
	}
	return a, nil
}

func (a *archive) Close() error { return a.f.Close() }

// open is entry name's bytes from the start.
func (a *archive) open(name string) (*io.SectionReader, error) {
	s := a.entries[path.Clean(name)]
	if s == nil {
		return nil, fmt.Errorf("image archive %s has no %s", a.f.Name(), name)
	}
	return io.NewSectionReader(s, 0, s.Size()), nil
}

func (a *archive) readJSON(name string, v any) ([]byte, error) {
	s, err := a.open(name)
	if err != nil {
		return nil, err
	}
	if s.Size() > maxJSON {
		return nil, fmt.Errorf("image archive %s: %s is %d bytes, more than a manifest or config can be", a.f.Name(), name, s.Size())
	}
	b, err := io.ReadAll(s)
	if err != nil {
		return nil, err
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			return nil, fmt.Errorf("image archive %s: %s: %w", a.f.Name(), name, err)
		}
	}
	return b, nil
}

// blobPath is where an OCI layout keeps a blob.
func blobPath(digest string) string {
	alg, hex, _ := strings.Cut(digest, ":")
	return "blobs/" + alg + "/" + hex
}

// sha256Of is the digest of r's bytes.
func sha256Of(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
