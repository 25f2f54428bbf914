package daggerbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The layout is what the engine's built-in content store reads: every
// blob named by its content's digest, index.json naming the manifest
// whose digest goes into DAGGER_GO_SDK_MANIFEST_DIGEST, and the config's
// diff IDs equal to the uncompressed layers' digests.
func TestWriteLayout(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	if err := os.WriteFile(filepath.Join(dirs[0], "a"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dirs[1], "usr/local/bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	layout := t.TempDir()
	digest, err := WriteLayout(context.Background(), layout, dirs, GoSDKConfig("go1.26.8"))
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := os.ReadDir(filepath.Join(layout, "blobs", "sha256"))
	if err != nil {
		t.Fatal(err)
	}
	if len(blobs) != 4 { // two layers, config, manifest
		t.Errorf("%d blobs, want 4", len(blobs))
	}
	for _, b := range blobs {
		data, err := os.ReadFile(filepath.Join(layout, "blobs", "sha256", b.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != b.Name() {
			t.Errorf("blob %s does not hash to its name", b.Name())
		}
	}
	var index struct{ Manifests []Descriptor }
	readJSON(t, filepath.Join(layout, "index.json"), &index)
	if len(index.Manifests) != 1 || index.Manifests[0].Digest != digest || index.Manifests[0].MediaType != mediaManifest {
		t.Fatalf("index.json names %+v, want the one manifest %s", index.Manifests, digest)
	}
	var manifest struct {
		Config Descriptor
		Layers []Descriptor
	}
	readJSON(t, blobPath(layout, digest), &manifest)
	var config struct {
		Config struct{ Env []string }
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
	readJSON(t, blobPath(layout, manifest.Config.Digest), &config)
	if len(manifest.Layers) != 2 || len(config.RootFS.DiffIDs) != 2 {
		t.Fatalf("%d layers and %d diff IDs, want 2 each", len(manifest.Layers), len(config.RootFS.DiffIDs))
	}
	for i, l := range manifest.Layers {
		if l.Digest != config.RootFS.DiffIDs[i] || l.MediaType != mediaLayer {
			t.Errorf("layer %d %+v: diff ID %s", i, l, config.RootFS.DiffIDs[i])
		}
	}
	if !strings.Contains(strings.Join(config.Config.Env, " "), "GONOSUMDB=dagger.io/dagger") {
		t.Errorf("config env %q lacks GONOSUMDB", config.Config.Env)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
