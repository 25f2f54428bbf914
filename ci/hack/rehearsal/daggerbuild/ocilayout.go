package daggerbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// OCI media types (image-spec v1.1).
const (
	mediaIndex    = "application/vnd.oci.image.index.v1+json"
	mediaManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaConfig   = "application/vnd.oci.image.config.v1+json"
	mediaLayer    = "application/vnd.oci.image.layer.v1.tar"
)

// Descriptor is an OCI content descriptor.
type Descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

// ImageConfig is the part of an OCI image config the SDK image sets.
type ImageConfig struct {
	Env        []string
	WorkingDir string
}

// ConfigJSON is the image config blob of an amd64 Linux image whose
// uncompressed layers have diffIDs.
func ConfigJSON(c ImageConfig, diffIDs []string) []byte {
	b, _ := json.Marshal(map[string]any{
		"architecture": "amd64",
		"os":           "linux",
		"config":       map[string]any{"Env": c.Env, "WorkingDir": c.WorkingDir},
		"rootfs":       map[string]any{"type": "layers", "diff_ids": diffIDs},
	})
	return b
}

// ManifestJSON is the image manifest blob.
func ManifestJSON(config Descriptor, layers []Descriptor) []byte {
	b, _ := json.Marshal(map[string]any{
		"schemaVersion": 2, "mediaType": mediaManifest, "config": config, "layers": layers,
	})
	return b
}

// IndexJSON is the layout's index.json naming the one manifest.
func IndexJSON(manifest Descriptor) []byte {
	b, _ := json.Marshal(map[string]any{
		"schemaVersion": 2, "mediaType": mediaIndex, "manifests": []Descriptor{manifest},
	})
	return b
}

// writeBlob writes data into layout's blobs/sha256 and describes it.
func writeBlob(layout, mediaType string, data []byte) (Descriptor, error) {
	sum := sha256.Sum256(data)
	d := Descriptor{MediaType: mediaType, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(data))}
	return d, os.WriteFile(blobPath(layout, d.Digest), data, 0o644)
}

func blobPath(layout, digest string) string {
	return filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(digest, "sha256:"))
}

// tarLayer writes `tar -c` of dir (numeric owners, as the root file
// system holds them) as an uncompressed layer blob into layout.
func tarLayer(ctx context.Context, layout, dir string) (Descriptor, error) {
	tmp, err := os.CreateTemp(filepath.Join(layout, "blobs", "sha256"), ".layer-")
	if err != nil {
		return Descriptor{}, err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	cmd := exec.CommandContext(ctx, "tar", "--numeric-owner", "--xattrs", "-C", dir, "-c", ".")
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.MultiWriter(tmp, h), &stderr
	if err := cmd.Run(); err != nil {
		tmp.Close()
		return Descriptor{}, fmt.Errorf("tar of %s: %w: %s", dir, err, stderr.String())
	}
	fi, err := tmp.Stat()
	if err != nil {
		return Descriptor{}, err
	}
	if err := tmp.Close(); err != nil {
		return Descriptor{}, err
	}
	d := Descriptor{MediaType: mediaLayer, Digest: "sha256:" + hex.EncodeToString(h.Sum(nil)), Size: fi.Size()}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil { // CreateTemp made it 0600; blobs are readable as the others
		return Descriptor{}, err
	}
	return d, os.Rename(tmp.Name(), blobPath(layout, d.Digest))
}

// WriteLayout writes an OCI image layout at layout of an image made of
// one uncompressed layer per directory in dirs and config c, and returns
// its manifest's digest.
func WriteLayout(ctx context.Context, layout string, dirs []string, c ImageConfig) (string, error) {
	if err := os.MkdirAll(filepath.Join(layout, "blobs", "sha256"), 0o755); err != nil {
		return "", err
	}
	var layers []Descriptor
	var diffIDs []string
	for _, dir := range dirs {
		d, err := tarLayer(ctx, layout, dir)
		if err != nil {
			return "", fmt.Errorf("OCI layout %s: %w", layout, err)
		}
		layers = append(layers, d)
		diffIDs = append(diffIDs, d.Digest) // uncompressed: the diff ID is the digest
	}
	config, err := writeBlob(layout, mediaConfig, ConfigJSON(c, diffIDs))
	if err != nil {
		return "", err
	}
	manifest, err := writeBlob(layout, mediaManifest, ManifestJSON(config, layers))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(layout, "oci-layout"), []byte(`{"imageLayoutVersion":"1.0.0"}`), 0o644); err != nil {
		return "", err
	}
	return manifest.Digest, os.WriteFile(filepath.Join(layout, "index.json"), IndexJSON(manifest), 0o644)
}
