package images

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker/dockertest"
)

// ociFromDockerSave turns a one-image docker save archive into the OCI
// layout Dagger's AsTarball writes: blobs, an index.json naming one
// manifest and a manifest.json, no name anywhere (see daggerShaped). It
// returns the archive and the manifest's digest. The layer stays the
// uncompressed tar docker save wrote (an OCI layer may be uncompressed:
// application/vnd.oci.image.layer.v1.tar).
func ociFromDockerSave(t *testing.T, saved []byte) ([]byte, string) {
	t.Helper()
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(saved))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		files[h.Name] = b
	}
	var items []struct {
		Config string
		Layers []string
	}
	if err := json.Unmarshal(files["manifest.json"], &items); err != nil || len(items) != 1 {
		t.Fatalf("docker save's manifest.json: %v %s", err, files["manifest.json"])
	}
	config := files[items[0].Config]
	type desc struct {
		MediaType string `json:"mediaType"`
		Digest    string `json:"digest"`
		Size      int    `json:"size"`
	}
	out := map[string][]byte{"oci-layout": []byte(`{"imageLayoutVersion":"1.0.0"}`)}
	blob := func(b []byte) string { d := digestOf(b); out[blobPath(d)] = b; return d }
	cfg := desc{"application/vnd.oci.image.config.v1+json", blob(config), len(config)}
	var layers []desc
	var layerPaths []string
	for _, l := range items[0].Layers {
		d := desc{"application/vnd.oci.image.layer.v1.tar", blob(files[l]), len(files[l])}
		layers, layerPaths = append(layers, d), append(layerPaths, blobPath(d.Digest))
	}
	manifest, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
		"config": cfg, "layers": layers})
	m := blob(manifest)
	out["index.json"], _ = json.Marshal(
		map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
			"manifests": []desc{{"application/vnd.oci.image.manifest.v1+json", m, len(manifest)}}})
	out["manifest.json"], _ = json.Marshal([]map[string]any{{"Config": blobPath(cfg.Digest), "RepoTags": nil, "Layers": layerPaths}})
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range sortedKeys(out) {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o444, Size: int64(len(out[name])), Typeflag: tar.TypeReg})
		tw.Write(out[name])
	}
	tw.Close()
	return buf.Bytes(), m
}

func sortedKeys(m map[string][]byte) []string {
	return slices.Sorted(maps.Keys(m))
}

// On the real daemon (Docker 20.10 here: a classic store, which keeps no
// digest for a loaded image), an unnamed OCI archive shaped as Dagger
// exports one loads by its config's ID; a reference pinned to the
// archive's manifest is tied by the archive; pinned to another digest it
// is refused before loading unless the index records the image, or the
// user asks to load it unchecked — and LoadOnce does not then trust its
// record on a later run without that flag.
func TestPinnedBundleOnTheRealDaemon(t *testing.T) {
	t.Parallel() // on names of its own (dockertest.UniqueName)
	c := dockertest.Daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmp := dockertest.UniqueName("gpu-lab-test/pinned-oci") + ":test"
	if err := importTiny(ctx, c, tmp); err != nil {
		t.Fatal(err)
	}
	id, err := c.ImageID(ctx, tmp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.Run(context.Background(), "rmi", "--force", tmp, id) })
	var saved bytes.Buffer
	if err := c.Save(ctx, tmp, &saved); err != nil {
		t.Fatal(err)
	}
	archive, manifest := ociFromDockerSave(t, saved.Bytes())
	if _, err := c.Run(ctx, "rmi", tmp); err != nil { // the load must bring it back
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	bundle := func(e Entry) string {
		dir := t.TempDir()
		e.File = ArchiveName(e.Ref)
		if err := os.WriteFile(filepath.Join(dir, e.File), archive, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := WriteIndex(dir, Index{Images: []Entry{e}}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	repo := strings.Split(tmp, ":")[0]
	pinned := repo + "@" + manifest
	other := repo + "@sha256:" + strings.Repeat("e", 64)

	loaded, err := Load(ctx, c, bundle(Entry{Ref: pinned}), log)
	if err != nil {
		t.Fatalf("pinned to the archive's manifest: %v", err)
	}
	if loaded.Local(pinned) != id {
		t.Errorf("%s loaded as %s, want the config's ID %s", pinned, loaded.Local(pinned), id)
	}
	if _, err := c.Run(ctx, "rmi", id); err != nil {
		t.Fatal(err)
	}
	_, err = Load(ctx, c, bundle(Entry{Ref: other}), log)
	if err == nil || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), "--"+AllowUnverifiedPinsFlag) ||
		!strings.Contains(err.Error(), "refused before loading anything") {
		t.Fatalf("pinned to another digest, nothing recorded: %v", err)
	}
	if ids, err := c.ImageIDs(ctx, id); err == nil {
		t.Errorf("the refused archive was loaded: %v", ids)
	}
	if _, err := Load(ctx, c, bundle(Entry{Ref: other, Config: id, Manifest: manifest}), log); err != nil {
		t.Errorf("pinned to another digest, the index records the image (as the Dagger module does): %v", err)
	}

	dir, record := bundle(Entry{Ref: other}), filepath.Join(t.TempDir(), "loaded.json")
	if _, err := LoadOnce(ctx, c, dir, record, LoadOptions{AllowUnverifiedPins: true}, log); err != nil {
		t.Fatalf("with --%s: %v", AllowUnverifiedPinsFlag, err)
	}
	if b, _ := os.ReadFile(record); !strings.Contains(string(b), `"unverified":[`+strconv.Quote(other)+`]`) {
		t.Errorf("the record does not say %s was loaded unchecked: %s", other, b)
	}
	if _, err := LoadOnce(ctx, c, dir, record, LoadOptions{}, log); err == nil || !strings.Contains(err.Error(), other) {
		t.Errorf("a later run without the flag trusted the record of an unchecked load: %v", err)
	}
}
