package images

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"slices"
	"strings"
)

// An image archive names the image it holds in its own small files, and
// those are all a pin check needs; the layers are passed over.
//
//   - `docker save` (every Docker): manifest.json, a list of {Config,
//     RepoTags, Layers} with paths inside the archive (moby v20.10.24
//     image/tarexport/tarexport.go:18-24 manifestItem). Docker 20.10 puts
//     the config at "<hex>.json"; the ID it gives the loaded image is the
//     sha256 of those bytes (image/tarexport/load.go:70-77 reads Config,
//     :126 l.is.Create(config); image/fs.go:119 digest.FromBytes).
//   - an OCI layout (containerd's exporter, which Dagger's
//     Container.AsTarball and Docker 25+'s docker save use): oci-layout,
//     index.json — an image index whose descriptors name manifests or
//     indexes — and blobs/<alg>/<encoded>, whose content MUST match the
//     digest <alg>:<encoded> (opencontainers/image-spec v1.1.1
//     image-layout.md:27-30 and :59-61). containerd adds manifest.json for
//     Docker's classic loader (containerd v2.2.3
//     core/images/archive/exporter.go:343-350, manifestsRecord :568-625:
//     Config "blobs/sha256/<hex>"). The containerd image store names a
//     loaded image by the digest index.json points to (moby docker-v29.7.2
//     daemon/containerd/image_exporter.go:341-345: an unnamed image loads
//     as "Loaded image ID: " + img.Target.Digest).
//
// So the archive says which config it holds (the classic store's ID) and
// which manifest or index (the containerd store's ID), and whether the
// digest a reference is pinned to is among them.

// ArchiveImage is what an image archive says of the one image it holds,
// each digest checked against the bytes it names.
type ArchiveImage struct {
	// Config is the digest of the image's config.
	Config string
	// Manifest is the digest index.json points to, when the archive is an
	// OCI layout.
	Manifest string
	// Digests are the manifests and indexes in the archive that lead to
	// Config: Manifest and, below an index, the manifest of Config's
	// platform. A digest pin that is one of them is this image.
	Digests []string
}

// Holds reports whether digest is the image's config or one of its
// manifests: the IDs a daemon may give the image once loaded.
func (a ArchiveImage) Holds(digest string) bool {
	return digest != "" && (digest == a.Config || slices.Contains(a.Digests, digest))
}

// Describe names the image for messages.
func (a ArchiveImage) Describe() string {
	if a.Manifest == "" {
		return "config " + a.Config + " (no OCI index.json, so no manifest digest)"
	}
	return fmt.Sprintf("config %s, manifest %s", a.Config, strings.Join(a.Digests, ", "))
}

// errNotImageArchive: the file is no tar with a manifest.json or
// index.json. Docker's load refuses such a file on its own; the bundle's
// checks then have nothing to read (and the package's tests' fake
// archives are such files).
var errNotImageArchive = errors.New("not an image archive")

// ReadArchive reads the image archive at path.
func ReadArchive(path string) (ArchiveImage, error) {
	f, err := os.Open(path)
	if err != nil {
		return ArchiveImage{}, err
	}
	defer f.Close()
	return readArchive(f) // a file: tar's reader seeks over the layers
}

func readArchive(r io.Reader) (ArchiveImage, error) {
	files, err := readEntries(r)
	if err != nil {
		return ArchiveImage{}, err
	}
	_, hasDocker := files.kept["manifest.json"]
	_, hasOCI := files.kept["index.json"]
	if !hasDocker && !hasOCI {
		return ArchiveImage{}, fmt.Errorf("%w: neither manifest.json nor index.json", errNotImageArchive)
	}
	var a ArchiveImage
	if hasDocker {
		if a.Config, err = dockerConfig(files); err != nil {
			return ArchiveImage{}, err
		}
	}
	if hasOCI {
		if err := ociImage(files, &a); err != nil {
			return ArchiveImage{}, err
		}
	}
	return a, nil
}

// dockerConfig reads manifest.json's one image and returns its config's
// digest, checked against the config's bytes.
func dockerConfig(files archiveFiles) (string, error) {
	var items []struct{ Config string }
	if err := json.Unmarshal(files.kept["manifest.json"], &items); err != nil {
		return "", fmt.Errorf("manifest.json: %w", err)
	}
	if len(items) != 1 {
		return "", fmt.Errorf("manifest.json names %d images, want one", len(items))
	}
	p := path.Clean(items[0].Config)
	var digest string
	if alg, enc, ok := strings.Cut(strings.TrimPrefix(p, "blobs/"), "/"); ok && strings.HasPrefix(p, "blobs/") {
		digest = alg + ":" + enc
	} else if enc, ok := strings.CutSuffix(p, ".json"); ok && !strings.Contains(enc, "/") {
		digest = "sha256:" + enc
	} else {
		return "", fmt.Errorf("manifest.json: config %q is neither blobs/<alg>/<hex> nor <hex>.json", items[0].Config)
	}
	b, err := files.read(p)
	if err != nil {
		return "", fmt.Errorf("manifest.json: config %s: %w", p, err)
	}
	if b == nil {
		return "", fmt.Errorf("manifest.json: config %s is not in the archive", p)
	}
	if err := verify(digest, b); err != nil {
		return "", fmt.Errorf("config %s: %w", p, err)
	}
	return digest, nil
}

// ociImage reads index.json: it must point to one image (one digest, under
// however many names), which leads to a's config, or names it when there
// is no manifest.json.
func ociImage(files archiveFiles, a *ArchiveImage) error {
	var index struct{ Manifests []descriptor }
	if err := json.Unmarshal(files.kept["index.json"], &index); err != nil {
		return fmt.Errorf("index.json: %w", err)
	}
	var top []descriptor
	for _, d := range index.Manifests {
		if !slices.ContainsFunc(top, func(t descriptor) bool { return t.Digest == d.Digest }) {
			top = append(top, d)
		}
	}
	if len(top) != 1 {
		return fmt.Errorf("index.json names %d images, want one", len(top))
	}
	w := walker{files: files, reach: map[string][]string{}}
	configs, err := w.walk(top[0], 0)
	if err != nil {
		return err
	}
	switch {
	case a.Config == "" && len(configs) == 1:
		a.Config = configs[0]
	case a.Config == "":
		return fmt.Errorf("index.json: %s leads to %d image configs and there is no manifest.json to choose one", top[0].Digest, len(configs))
	case !slices.Contains(configs, a.Config):
		return fmt.Errorf("index.json names %s, which does not lead to manifest.json's config %s", top[0].Digest, a.Config)
	}
	a.Manifest = top[0].Digest
	a.Digests = w.reach[a.Config]
	return nil
}

// descriptor is the part of an OCI descriptor the walk reads
// (image-spec v1.1.1 descriptor.md: mediaType, digest).
type descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
}

// walker follows index.json down to configs; reach records, per config,
// the manifests and indexes that lead to it, outermost first.
type walker struct {
	files archiveFiles
	reach map[string][]string
}

// Media types of indexes and manifests, OCI's and Docker's (image-spec
// v1.1.1 specs-go/v1/mediatype.go:24-28; containerd v2.2.3
// core/images/mediatypes.go:40-41).
var (
	indexTypes    = []string{"application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json"}
	manifestTypes = []string{"application/vnd.oci.image.manifest.v1+json", "application/vnd.docker.distribution.manifest.v2+json"}
)

// walk returns the configs d leads to. A blob the archive lacks leads
// nowhere: an index saved for one platform keeps the others' descriptors
// without their content (containerd v2.2.3 exporter.go:157-194
// WithSkipMissing).
func (w walker) walk(d descriptor, depth int) ([]string, error) {
	if depth > 4 {
		return nil, fmt.Errorf("index.json: indexes nested deeper than 4 at %s", d.Digest)
	}
	b, err := w.files.read(blobPath(d.Digest))
	if err != nil {
		return nil, fmt.Errorf("index.json: %s: %w", d.Digest, err)
	}
	if b == nil {
		return nil, nil
	}
	if err := verify(d.Digest, b); err != nil {
		return nil, fmt.Errorf("blob %s: %w", d.Digest, err)
	}
	var body struct {
		MediaType string       `json:"mediaType"`
		Config    descriptor   `json:"config"`
		Manifests []descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		return nil, fmt.Errorf("blob %s: %w", d.Digest, err)
	}
	mt := d.MediaType
	if mt == "" {
		mt = body.MediaType
	}
	var configs []string
	switch {
	case slices.Contains(manifestTypes, mt):
		c, err := w.files.read(blobPath(body.Config.Digest))
		if err != nil {
			return nil, fmt.Errorf("manifest %s: config %s: %w", d.Digest, body.Config.Digest, err)
		}
		if c == nil {
			return nil, nil
		}
		configs = []string{body.Config.Digest}
	case slices.Contains(indexTypes, mt):
		for _, m := range body.Manifests {
			c, err := w.walk(m, depth+1)
			if err != nil {
				return nil, err
			}
			configs = append(configs, c...)
		}
	default:
		return nil, fmt.Errorf("blob %s: media type %q is neither an image manifest nor an index", d.Digest, mt)
	}
	for _, c := range configs {
		if err := verify(c, w.files.kept[blobPath(c)]); err != nil {
			return nil, fmt.Errorf("config %s: %w", c, err)
		}
		w.reach[c] = slices.Insert(w.reach[c], 0, d.Digest)
	}
	return configs, nil
}

// blobPath is where an OCI layout keeps digest (image-layout.md:59-61).
func blobPath(digest string) string {
	alg, enc, _ := strings.Cut(digest, ":")
	return "blobs/" + alg + "/" + enc
}

// verify checks b against digest (the algorithms a reference may use,
// digestHexLen).
func verify(digest string, b []byte) error {
	alg, enc, _ := strings.Cut(digest, ":")
	var h hash.Hash
	switch alg {
	case "sha256":
		h = sha256.New()
	case "sha384":
		h = sha512.New384()
	case "sha512":
		h = sha512.New()
	default:
		return fmt.Errorf("digest %q: unknown algorithm", digest)
	}
	h.Write(b)
	if got := hex.EncodeToString(h.Sum(nil)); got != enc {
		return fmt.Errorf("content is %s:%s, not %s (a damaged or altered archive)", alg, got, digest)
	}
	return nil
}
