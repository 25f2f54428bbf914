package main

import (
	"archive/tar"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// recordedArchive is the OCI archive ci/images records the metadata of
// (ci/images/testdata/archives/README.md), layers left out, as a tar.
func recordedArchive(t *testing.T) []byte {
	t.Helper()
	dir := "../../images/testdata/archives/containerd-1.6.20"
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err != nil || tw.Close() != nil {
		t.Fatalf("recorded archive: %v", err)
	}
	return buf.Bytes()
}

// TestBundleIndexRecordsArchives: with --archives, --bundle-index records
// each image's digests read from its archive — what the Dagger module
// hands `up --images` — and refuses a bundle that lacks an archive,
// naming the image.
func TestBundleIndexRecordsArchives(t *testing.T) {
	plain, _ := bundleIndex(t)
	dir := t.TempDir()
	archive := recordedArchive(t)
	for _, e := range plain.Images {
		if err := os.WriteFile(filepath.Join(dir, e.File), archive, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx, raw := bundleIndex(t, "--archives", dir)
	if len(idx.Images) != len(plain.Images) || len(idx.Charts) != len(plain.Charts) {
		t.Fatalf("--archives changed what the index names:\n%s", raw)
	}
	const config = "sha256:c657738e454d43fbd06555996a8f66a9f9b02dd27fc6b5745fa9e60cb2e00c4c"
	const manifest = "sha256:83200609f17b523d48be664313e287ce282cfeda72bb55b6e9992f10e0af4b46"
	for i, e := range idx.Images {
		if e.Ref != plain.Images[i].Ref || e.File != plain.Images[i].File || e.Config != config || e.Manifest != manifest || e.ID != "" {
			t.Errorf("entry %d = %+v, want %s in %s with config %s and manifest %s",
				i, e, plain.Images[i].Ref, plain.Images[i].File, config, manifest)
		}
	}
	missing := idx.Images[0]
	if err := os.Remove(filepath.Join(dir, missing.File)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, newImagesCommand, "--bundle-index", "--archives", dir); err == nil || !strings.Contains(err.Error(), missing.Ref) {
		t.Errorf("a bundle without the archive of %s was indexed: %v", missing.Ref, err)
	}
}

// TestUpHelpNamesTheUnverifiedPinsFlag: the flag the refusal names is
// up's, and its help says what it does.
func TestUpHelpNamesTheUnverifiedPinsFlag(t *testing.T) {
	f := newUpCommand(streams{}).Flags().Lookup(images.AllowUnverifiedPinsFlag)
	if f == nil || f.DefValue != "false" || !strings.Contains(f.Usage, "digest-pinned") || !strings.Contains(f.Usage, "refused") {
		t.Errorf("up --%s: %+v", images.AllowUnverifiedPinsFlag, f)
	}
}
