package testenv

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/docker/dockertest"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

func TestImageTag(t *testing.T) {
	const digest = "sha256:d366a4665ab44f0648d7a00ae3fae139d55e32f9712c67accd604bb55df9d05a"
	for ref, want := range map[string]string{
		"projecthami/hami:v2.10.0":                  "v2.10.0",
		"docker.io/projecthami/hami:v2.10.0":        "v2.10.0",
		"registry:5000/projecthami/hami:v2.10.0":    "v2.10.0",
		"registry:5000/projecthami/hami":            "",
		"projecthami/hami@" + digest:                "",
		"projecthami/hami:v2.10.0@" + digest:        "v2.10.0",
		"localhost:5000/hami:v2.10.0-rc1@" + digest: "v2.10.0-rc1",
		"not a reference:v1":                        "",
	} {
		if got := imageTag(ref); got != want {
			t.Errorf("imageTag(%q) = %q, want %q", ref, got, want)
		}
	}
}

// Answers of `docker image inspect --format '{{json .Id}} {{json
// .RepoDigests}}'`: an imported image, recorded with Docker 20.10.24 on
// 2026-12-01 (`docker import` of a one-file tarball); a pulled image's
// RepoDigests as a published run of the same format printed it for
// busybox:latest (gist.github.com/killbus/875b180741951980798c8fdeff04c46d);
// and null, which Docker 24 returns for images without digests
// (github.com/moby/moby issue 45556). The pulled image's ID is not in that
// source; the imported one's stands in.
func TestParseImageIdentityAndName(t *testing.T) {
	const id = "sha256:de42ea2f3bc54f7ecd874d1462c124481df90bae18dd22992507acf106594a6a"
	const digest = "sha256:d366a4665ab44f0648d7a00ae3fae139d55e32f9712c67accd604bb55df9d05a"
	cases := []struct {
		name, image, raw string
		wantDigest       string
		wantName         string
	}{
		{"pulled", "busybox:latest", `"` + id + `" ["busybox@` + digest + `"]`,
			"busybox@" + digest, "HAMi scheduler latest from busybox:latest@" + digest},
		{"pulled, another repository listed first", "busybox:latest",
			`"` + id + `" ["mirror.example/x/other@sha256:00","busybox@` + digest + `"]`,
			"busybox@" + digest, "HAMi scheduler latest from busybox:latest@" + digest},
		{"imported (recorded)", "gpu-lab-record-hami:v0.0.0-test", `"` + id + `" []`,
			"", "HAMi scheduler v0.0.0-test from gpu-lab-record-hami:v0.0.0-test (image " + id + ", no registry digest)"},
		// The hand-written match took any repository ending in "/hami"
		// for hami (docker.io/library/hami).
		{"another repository with the same last element", "hami:v2.10.0", `"` + id + `" ["projecthami/hami@` + digest + `"]`,
			"", "HAMi scheduler v2.10.0 from hami:v2.10.0 (image " + id + ", no registry digest)"},
		{"named on docker.io, listed familiar", "docker.io/library/busybox:latest", `"` + id + `" ["busybox@` + digest + `"]`,
			"busybox@" + digest, "HAMi scheduler latest from busybox:latest@" + digest},
		{"no digests (null)", "gpu-lab-record-hami:v0.0.0-test", `"` + id + `" null`,
			"", "HAMi scheduler v0.0.0-test from gpu-lab-record-hami:v0.0.0-test (image " + id + ", no registry digest)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gotID, gotDigest, err := parseImageIdentity([]byte(tc.raw+"\n"), tc.image)
			if err != nil || gotID != id || gotDigest != tc.wantDigest {
				t.Fatalf("parseImageIdentity = %q, %q, %v; want %q, %q", gotID, gotDigest, err, id, tc.wantDigest)
			}
			if got := (hamiImageBinary{Image: tc.image, ID: gotID, RepoDigest: gotDigest}).name(); got != tc.wantName {
				t.Errorf("Name() = %q, want %q", got, tc.wantName)
			}
		})
	}
	if _, _, err := parseImageIdentity([]byte("Error: no such image"), "x"); err == nil {
		t.Error("an unexpected answer was accepted")
	}
}

// importHAMiLikeImage imports an image holding bin at HAMi's path
// (/k8s-vgpu/bin/scheduler) and nothing else, since no HAMi image can be
// pulled here.
func importHAMiLikeImage(t *testing.T, c docker.CLI, bin []byte) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, d := range []string{"k8s-vgpu/", "k8s-vgpu/bin/"} {
		if err := tw.WriteHeader(&tar.Header{Name: d, Mode: 0o755, Typeflag: tar.TypeDir}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.WriteHeader(&tar.Header{Name: strings.TrimPrefix(hamiImageScheduler, "/"), Mode: 0o755, Size: int64(len(bin))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(bin); err != nil {
		t.Fatal(err)
	}
	tw.Close()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	ref := "gpu-lab-test-hami-" + hex.EncodeToString(b) + ":v0.0.0-test"
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.Import(ctx, &buf, ref); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.RemoveImage(context.Background(), ref) })
	return ref
}

// A binary at /k8s-vgpu/bin/scheduler comes out of the image byte for byte
// into the cache, keyed by the image's ID; a second call finds it there
// without a container; no container is left behind; and the image's name,
// tag and ID name the backend. The image holds the double's labctl (no HAMi
// image can be pulled here), run as HAMi's `scheduler`: Start's choice of
// HAMi (resolveHAMi, given Start's Options) runs the extracted binary and
// names the image, not the double. That an environment comes up on a
// binary that is not the double, and names it in its backend line, the
// solo environment shows (hamiDropsIn): no environment is booted here.
func TestHAMiImageExtractedCachedAndNamed(t *testing.T) {
	t.Parallel()
	c := dockertest.Daemon(t)
	src, err := bincache.EnsureDoubleBinary(context.Background(), progress())
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir() // a cache of its own: the first call must extract
	want, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	ref := importHAMiLikeImage(t, c, want)
	ctx := context.Background()
	containersBefore := extractContainers(t, c)

	first, err := extractHAMiScheduler(ctx, c, ref, cache, progress())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(first.Path)
	if err != nil || !bytes.Equal(got, want) || first.Cached {
		t.Fatalf("extracted %s (%d bytes, cached %v, err %v), want the image's %d bytes, freshly extracted", first.Path, len(got), first.Cached,
			err, len(want))
	}
	if !strings.Contains(first.Path, strings.TrimPrefix(first.ID, "sha256:")) {
		t.Errorf("cache path %s is not keyed by the image ID %s", first.Path, first.ID)
	}
	second, err := extractHAMiScheduler(ctx, c, ref, cache, progress())
	if err != nil || !second.Cached || second.Path != first.Path {
		t.Errorf("second extraction: %+v, %v; want the cached %s", second, err, first.Path)
	}
	if left := extractContainers(t, c); left != containersBefore {
		t.Errorf("extraction containers before %q, after %q: one was left behind", containersBefore, left)
	}

	b, err := resolveHAMi(ctx, Options{HAMiImage: ref, cacheRoot: cache}, progress())
	if err != nil {
		t.Fatal(err)
	}
	wantName := "HAMi scheduler v0.0.0-test from " + ref + " (image " + first.ID + ", no registry digest)"
	if b.double || b.bin != first.Path || b.name != wantName {
		t.Errorf("HAMi chosen from the image: %+v; want %s, named %q, not the double", b, first.Path, wantName)
	}
}

// extractContainers lists the containers ExtractHAMiScheduler names.
func extractContainers(t *testing.T, c docker.CLI) string {
	t.Helper()
	out, err := c.Run(context.Background(), "ps", "-a", "--filter", "name=gpu-lab-hami-extract-", "--format", "{{.Names}}")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// An image the daemon lacks and cannot pull fails at once, saying how to
// go on, and leaves nothing in the cache.
func TestHAMiImageMissingWithoutRegistry(t *testing.T) {
	t.Parallel()
	c := dockertest.Daemon(t)
	cache := t.TempDir()
	_, err := extractHAMiScheduler(context.Background(), c, "gpu-lab-test-absent/hami:v0.0.0-none", cache, nil)
	if err == nil {
		t.Skip("the daemon pulled an image that should not exist; this machine reaches a registry that has it")
	}
	for _, want := range []string{"gpu-lab-test-absent/hami:v0.0.0-none", "--hami-binary", "docker load"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	// It comes from `labctl testenv up --hami-image`: advising that very
	// command would send the user in a circle.
	if strings.Contains(err.Error(), "labctl testenv up") || !errors.Is(err, docker.ErrNoRegistry) {
		t.Errorf("error %v: want ErrNoRegistry without the advice to run labctl testenv up", err)
	}
	if left, _ := os.ReadDir(cache); len(left) > 0 {
		t.Errorf("left in the cache: %v", left)
	}
}
