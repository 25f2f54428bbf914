package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Media types of what Push sends (OCI image-spec v1.1 media-types.md;
// an uncompressed layer's digest is its diff ID, so a docker save
// archive's layers go up as they are).
const (
	ociManifest = "application/vnd.oci.image.manifest.v1+json"
	ociConfig   = "application/vnd.oci.image.config.v1+json"
	ociLayer    = "application/vnd.oci.image.layer.v1.tar"
)

// Pusher pushes image archives to a registry over the distribution API
// (OCI distribution-spec: monolithic blob upload POST then PUT ?digest=,
// manifest PUT by tag).
type Pusher struct {
	Client *http.Client
	// Host is the registry's host:port as Client reaches it.
	Host string
}

type descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

type manifest struct {
	MediaType string       `json:"mediaType,omitempty"`
	Config    *descriptor  `json:"config,omitempty"`
	Layers    []descriptor `json:"layers,omitempty"`
	Manifests []descriptor `json:"manifests,omitempty"`
}

// push puts the image in the archive at file into repository repo with
// tag, and returns the digest of the manifest (or index) the tag names.
// An OCI layout's manifests go up byte for byte, so their digests stay
// the archive's; a docker save archive (manifest.json only) gets an OCI
// manifest made here from its config and layers.
func (p Pusher) push(ctx context.Context, file, repo, tag string) (string, error) {
	a, err := openArchive(file)
	if err != nil {
		return "", err
	}
	defer a.Close()
	if _, ok := a.entries["index.json"]; ok {
		var idx manifest
		if _, err := a.readJSON("index.json", &idx); err != nil {
			return "", err
		}
		if len(idx.Manifests) != 1 {
			return "", fmt.Errorf("image archive %s: index.json names %d images, Push takes archives of one", file, len(idx.Manifests))
		}
		top := idx.Manifests[0]
		if err := p.pushTree(ctx, a, repo, top, 0); err != nil {
			return "", err
		}
		return top.Digest, p.putManifestFromArchive(ctx, a, repo, tag, top)
	}
	return p.pushDockerArchive(ctx, a, repo, tag)
}

// pushTree pushes what d names (blobs first, then child manifests by
// digest); the top one is put by tag by the caller.
func (p Pusher) pushTree(ctx context.Context, a *archive, repo string, d descriptor, depth int) error {
	if depth > 4 {
		return fmt.Errorf("image archive %s: manifests nested deeper than an image has them", a.f.Name())
	}
	var m manifest
	if _, err := a.readJSON(blobPath(d.Digest), &m); err != nil {
		return err
	}
	for _, c := range m.Manifests {
		if _, ok := a.entries[blobPath(c.Digest)]; !ok {
			continue // another platform's image, not in the archive
		}
		if err := p.pushTree(ctx, a, repo, c, depth+1); err != nil {
			return err
		}
		if err := p.putManifestFromArchive(ctx, a, repo, c.Digest, c); err != nil {
			return err
		}
	}
	blobs := m.Layers
	if m.Config != nil {
		blobs = append(blobs, *m.Config)
	}
	for _, b := range blobs {
		s, err := a.open(blobPath(b.Digest))
		if err != nil {
			return err
		}
		if err := p.pushBlob(ctx, repo, b.Digest, s); err != nil {
			return err
		}
	}
	return nil
}

func (p Pusher) putManifestFromArchive(ctx context.Context, a *archive, repo, ref string, d descriptor) error {
	b, err := a.readJSON(blobPath(d.Digest), nil)
	if err != nil {
		return err
	}
	mt := d.MediaType
	if mt == "" {
		var m manifest
		_ = json.Unmarshal(b, &m)
		mt = m.MediaType
	}
	_, err = p.putManifest(ctx, repo, ref, mt, b)
	return err
}

// pushDockerArchive pushes a docker save archive's one image.
func (p Pusher) pushDockerArchive(ctx context.Context, a *archive, repo, tag string) (string, error) {
	var items []struct {
		Config string
		Layers []string
	}
	if _, err := a.readJSON("manifest.json", &items); err != nil {
		return "", err
	}
	if len(items) != 1 {
		return "", fmt.Errorf("image archive %s: manifest.json names %d images, Push takes archives of one", a.f.Name(), len(items))
	}
	m := manifest{MediaType: ociManifest}
	for _, l := range items[0].Layers {
		d, err := p.pushEntry(ctx, a, repo, l)
		if err != nil {
			return "", err
		}
		d.MediaType = ociLayer
		m.Layers = append(m.Layers, d)
	}
	c, err := p.pushEntry(ctx, a, repo, items[0].Config)
	if err != nil {
		return "", err
	}
	c.MediaType = ociConfig
	m.Config = &c
	body, err := json.Marshal(struct {
		SchemaVersion int `json:"schemaVersion"`
		manifest
	}{2, m})
	if err != nil {
		return "", err
	}
	return p.putManifest(ctx, repo, tag, ociManifest, body)
}

// pushEntry hashes an archive entry and pushes it as a blob.
func (p Pusher) pushEntry(ctx context.Context, a *archive, repo, name string) (descriptor, error) {
	s, err := a.open(name)
	if err != nil {
		return descriptor{}, err
	}
	dg, err := sha256Of(s)
	if err != nil {
		return descriptor{}, fmt.Errorf("image archive %s: %s: %w", a.f.Name(), name, err)
	}
	s, _ = a.open(name)
	return descriptor{Digest: dg, Size: s.Size()}, p.pushBlob(ctx, repo, dg, s)
}

func (p Pusher) url(format string, args ...any) string {
	return "http://" + p.Host + fmt.Sprintf(format, args...)
}

// pushBlob uploads a blob unless the repository has it.
func (p Pusher) pushBlob(ctx context.Context, repo, digest string, body *io.SectionReader) error {
	head, err := p.do(ctx, http.MethodHead, p.url("/v2/%s/blobs/%s", repo, digest), nil, -1, "")
	if err == nil && head.StatusCode == http.StatusOK {
		return nil
	}
	start, err := p.do(ctx, http.MethodPost, p.url("/v2/%s/blobs/uploads/", repo), nil, 0, "")
	if err != nil {
		return err
	}
	if start.StatusCode != http.StatusAccepted {
		return fmt.Errorf("registry %s: starting an upload to %s: %s", p.Host, repo, start.Status)
	}
	loc, err := start.Request.URL.Parse(start.Header.Get("Location"))
	if err != nil {
		return fmt.Errorf("registry %s: upload location %q: %w", p.Host, start.Header.Get("Location"), err)
	}
	q := loc.Query()
	q.Set("digest", digest)
	loc.RawQuery = q.Encode()
	put, err := p.do(ctx, http.MethodPut, loc.String(), body, body.Size(), "application/octet-stream")
	if err != nil {
		return err
	}
	if put.StatusCode != http.StatusCreated {
		return fmt.Errorf("registry %s: uploading blob %s to %s: %s", p.Host, digest, repo, put.Status)
	}
	return nil
}

// putManifest puts a manifest under ref (a tag or its digest) and returns
// the digest the registry says it has.
func (p Pusher) putManifest(ctx context.Context, repo, ref, mediaType string, body []byte) (string, error) {
	resp, err := p.do(ctx, http.MethodPut, p.url("/v2/%s/manifests/%s", repo, url.PathEscape(ref)), bytes.NewReader(body),
		int64(len(body)), mediaType)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("registry %s: putting manifest %s:%s: %s", p.Host, repo, ref, resp.Status)
	}
	return resp.Header.Get("Docker-Content-Digest"), nil
}

// do sends one request and closes its body (the caller reads only the
// status and headers).
func (p Pusher) do(ctx context.Context, method, u string, body io.Reader, size int64, contentType string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if size >= 0 {
		req.ContentLength = size
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := p.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("registry %s: %s %s: %w", p.Host, method, strings.TrimPrefix(u, "http://"+p.Host), err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	return resp, nil
}
