package images

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The recordings (testdata/archives/README.md: how they were made): one
// image built FROM scratch, saved by Docker 20.10.24 and exported again by
// containerd 1.6.20; the layers are not kept.
const (
	recordedDocker     = "testdata/archives/docker-20.10.24"
	recordedContainerd = "testdata/archives/containerd-1.6.20"
	// recordedConfig is the image ID Docker 20.10 gave the image.
	recordedConfig = "sha256:c657738e454d43fbd06555996a8f66a9f9b02dd27fc6b5745fa9e60cb2e00c4c"
	// recordedManifest is the manifest containerd made on import.
	recordedManifest = "sha256:83200609f17b523d48be664313e287ce282cfeda72bb55b6e9992f10e0af4b46"
)

// recorded returns the files of a recording, by path in the archive.
func recorded(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// tarOf writes files as a tar, in name order as containerd's exporter does
// (a layer-sized entry first, which the reader must pass over).
func tarOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	big := bytes.Repeat([]byte{0}, maxMetadataFile+1)
	tw.WriteHeader(&tar.Header{Name: "blobs/sha256/" + strings.Repeat("0", 64), Mode: 0o444, Size: int64(len(big)), Typeflag: tar.TypeReg})
	tw.Write(big)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(files[n])
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// daggerShaped is the containerd recording as Dagger's AsTarball writes
// its archive: no name anywhere (containerd v2.2.3 exporter.go:114-118
// WithManifest without names adds no annotation, and manifestsRecord
// gives no RepoTags; dagger v0.21.8 engine/engineutil/containerimage.go:137).
func daggerShaped(t *testing.T) map[string][]byte {
	files := recorded(t, recordedContainerd)
	files["index.json"] = []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json",` +
		`"manifests":[{"mediaType":"application/vnd.docker.distribution.manifest.v2+json","digest":"` + recordedManifest +
		`","size":420}]}`)
	files["manifest.json"] = []byte(`[{"Config":"blobs/sha256/` + strings.TrimPrefix(recordedConfig, "sha256:") +
		`","RepoTags":null,"Layers":["blobs/sha256/27c963b53216303329e21dfd494dfce508b5ddf192374455bc8fe3de88019386"]}]`)
	return files
}

// indexed is the containerd recording under a two-platform index, as a
// containerd store's docker save of a pulled multi-platform image is: the
// other platform's manifest listed, its content not saved. Synthesized
// around the recorded manifest (no registry here to pull a real index).
// It returns the files and the index's digest.
func indexed(t *testing.T) (map[string][]byte, string) {
	files := recorded(t, recordedContainerd)
	index := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[` +
		`{"mediaType":"application/vnd.docker.distribution.manifest.v2+json","digest":"` + recordedManifest +
		`","size":420,"platform":{"architecture":"amd64","os":"linux"}},` +
		`{"mediaType":"application/vnd.docker.distribution.manifest.v2+json","digest":"sha256:` + strings.Repeat("a", 64) +
		`","size":420,"platform":{"architecture":"arm64","os":"linux"}}]}`)
	d := digestOf(index)
	files[blobPath(d)] = index
	files["index.json"] = []byte(`{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.index.v1+json",` +
		`"digest":"` + d + `","size":` + strconv.Itoa(len(index)) + `}]}`)
	return files, d
}

// ReadArchive names the recorded image in each format: Docker 20.10's
// archive by its config only, an OCI layout also by its manifest, and an
// index by itself and the manifest below it.
func TestReadArchiveOfRecordedArchives(t *testing.T) {
	withIndex, indexDigest := indexed(t)
	for _, c := range []struct {
		name  string
		files map[string][]byte
		want  ArchiveImage
	}{
		{"docker save, Docker 20.10.24", recorded(t, recordedDocker), ArchiveImage{Config: recordedConfig}},
		{"OCI layout, containerd 1.6.20", recorded(t, recordedContainerd),
			ArchiveImage{Config: recordedConfig, Manifest: recordedManifest, Digests: []string{recordedManifest}}},
		{"OCI layout without names, as Dagger exports", daggerShaped(t),
			ArchiveImage{Config: recordedConfig, Manifest: recordedManifest, Digests: []string{recordedManifest}}},
		{"a two-platform index, one saved", withIndex,
			ArchiveImage{Config: recordedConfig, Manifest: indexDigest, Digests: []string{indexDigest, recordedManifest}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readArchive(bytes.NewReader(tarOf(t, c.files)))
			if err != nil {
				t.Fatal(err)
			}
			if got.Config != c.want.Config || got.Manifest != c.want.Manifest || !slices.Equal(got.Digests, c.want.Digests) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
			if !got.Holds(recordedConfig) || got.Holds("sha256:"+strings.Repeat("b", 64)) || got.Holds("") {
				t.Errorf("Holds is wrong for %+v", got)
			}
		})
	}
}

// A damaged or contradictory archive is an error; a file that is no image
// archive at all is errNotImageArchive (docker load refuses it itself).
func TestReadArchiveRefuses(t *testing.T) {
	configPath := "blobs/sha256/" + strings.TrimPrefix(recordedConfig, "sha256:")
	edit := func(dir string, f func(map[string][]byte)) []byte {
		files := recorded(t, dir)
		f(files)
		return tarOf(t, files)
	}
	for _, c := range []struct {
		name    string
		archive []byte
		want    string
	}{
		{"an altered config (OCI)", edit(recordedContainerd,
			func(f map[string][]byte) { f[configPath] = append(f[configPath], ' ') }), "damaged or altered"},
		{"an altered config (docker save)", edit(recordedDocker, func(f map[string][]byte) {
			n := strings.TrimPrefix(recordedConfig, "sha256:") + ".json"
			f[n] = bytes.Replace(f[n], []byte("pin-recording"), []byte("pin-recordinG"), 1)
		}), "damaged or altered"},
		{"an altered manifest", edit(recordedContainerd, func(f map[string][]byte) {
			p := blobPath(recordedManifest)
			f[p] = bytes.Replace(f[p], []byte(`"size":2048`), []byte(`"size":2049`), 1)
		}), "damaged or altered"},
		{"two images in manifest.json", edit(recordedDocker, func(f map[string][]byte) {
			item := bytes.Trim(bytes.TrimSpace(f["manifest.json"]), "[]")
			f["manifest.json"] = []byte("[" + string(item) + "," + string(item) + "]")
		}), "names 2 images"},
		{"a config manifest.json lacks", edit(recordedDocker,
			func(f map[string][]byte) { delete(f, strings.TrimPrefix(recordedConfig, "sha256:")+".json") }),
			"not in the archive"},
		{"index.json and manifest.json disagree", edit(recordedContainerd, func(f map[string][]byte) {
			f["manifest.json"] = bytes.Replace(f["manifest.json"], []byte(configPath), []byte(blobPath(recordedManifest)), 1)
		}), "does not lead to manifest.json's config"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readArchive(bytes.NewReader(c.archive))
			if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, errNotImageArchive) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
	for name, b := range map[string][]byte{
		"not a tar":                 []byte("archive of example.test/a:v1"),
		"a tar with no image in it": tarOf(t, map[string][]byte{"hello.txt": []byte("hi")}),
	} {
		if _, err := readArchive(bytes.NewReader(b)); !errors.Is(err, errNotImageArchive) {
			t.Errorf("%s: err = %v, want errNotImageArchive", name, err)
		}
	}
}

// Layers are passed over by their first bytes, whatever their number and
// size: small ones too, more of them than the cap on what is kept (a
// stream, so the test holds none of them). Each has a name of its own, as
// in an archive a daemon wrote (a name twice is refused: entries_test.go).
func TestReadArchivePassesOverLayers(t *testing.T) {
	files := recorded(t, recordedContainerd)
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		layer := append([]byte{0x1f, 0x8b}, bytes.Repeat([]byte{'{'}, maxMetadataFile-2)...) // gzip's magic first
		for i := range maxMetadataTotal/maxMetadataFile + 4 {
			tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("blobs/sha256/%064x", i), Mode: 0o444, Size: int64(len(layer)), Typeflag: tar.TypeReg})
			tw.Write(layer)
		}
		for _, n := range slices.Sorted(maps.Keys(files)) {
			tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg})
			tw.Write(files[n])
		}
		pw.CloseWithError(tw.Close())
	}()
	got, err := readArchive(pr)
	if err != nil || got.Config != recordedConfig || got.Manifest != recordedManifest {
		t.Errorf("readArchive = %+v, %v", got, err)
	}
}
