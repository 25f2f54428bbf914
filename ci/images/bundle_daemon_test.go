package images

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/docker/dockertest"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// importTiny creates a one-file image named ref with docker import: no
// registry is reachable here, so the lab's images are stood in for by tiny
// ones under the same names.
func importTiny(t *testing.T, ctx context.Context, c docker.CLI, ref string) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	body := []byte("stands in for " + ref + "\n")
	if err := tw.WriteHeader(&tar.Header{Name: "ref", Mode: 0o644, Size: int64(len(body))}); err != nil {
		t.Fatal(err)
	}
	tw.Write(body)
	tw.Close()
	if err := c.Import(ctx, &buf, ref, "LABEL "+standInLabel+"=true"); err != nil {
		t.Fatal(err)
	}
}

// standInLabel marks the tiny images importTiny makes, so that one left by
// an interrupted run is told apart from a real image under the same name.
const standInLabel = "dev.gpu-lab.test-stand-in"

// heldByDaemon lists the refs the daemon holds as images other than this
// package's stand-ins.
func heldByDaemon(ctx context.Context, t *testing.T, c docker.CLI, refs []string) []string {
	t.Helper()
	var held []string
	for _, ref := range refs {
		ok, err := c.ImageExists(ctx, ref)
		if err != nil {
			t.Fatalf("docker image inspect %s: %v", ref, err)
		}
		if !ok {
			continue
		}
		out, err := c.Run(ctx, "image", "inspect", "--format", `{{index .Config.Labels "`+standInLabel+`"}}`, ref)
		if err != nil {
			t.Fatalf("docker image inspect %s: %v", ref, err)
		}
		if strings.TrimSpace(string(out)) != "true" {
			held = append(held, ref)
		}
	}
	return held
}

// TestBundleRoundTripOnTheRealDaemon saves the lab's bundle (every image
// `labctl images` says a bundle holds, digest-pinned ones aside) from the
// real daemon, removes the images, loads the bundle back and finds every
// image under its name with its ID.
func TestBundleRoundTripOnTheRealDaemon(t *testing.T) {
	c := dockertest.Daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	list, err := List(lab.Default())
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, ref := range BundleRefs(list) {
		if !strings.Contains(ref, "@") {
			refs = append(refs, ref)
		}
	}
	if len(refs) < 10 {
		t.Fatalf("only %d bundled tag references: %v", len(refs), refs)
	}
	// The round trip needs the lab's real names (that is what it proves), so
	// it replaces and then removes them: on a daemon that holds a real one
	// (a developer's loaded bundle, HAMi's image for --hami-image) it would
	// destroy it. Such a daemon is not what this test is for.
	if held := heldByDaemon(ctx, t, c, refs); len(held) > 0 {
		t.Skipf("the daemon already holds %v; this test would replace them with tiny stand-ins and delete them — run it on a daemon without the lab's images (CI's is empty)", held)
	}
	t.Cleanup(func() {
		for _, ref := range refs {
			_ = c.RemoveImage(context.Background(), ref)
		}
	})
	ids := map[string]string{}
	for _, ref := range refs {
		importTiny(t, ctx, c, ref)
		id, err := c.ImageID(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		ids[ref] = id
	}
	dir := t.TempDir()
	log := slog.New(slog.DiscardHandler)
	idx, err := Save(ctx, c, refs, dir, time.Second, log)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Images) != len(refs) {
		t.Fatalf("index holds %d images, want %d", len(idx.Images), len(refs))
	}
	for _, ref := range refs {
		if err := c.RemoveImage(ctx, ref); err != nil {
			t.Fatal(err)
		}
		if ok, _ := c.ImageExists(ctx, ref); ok {
			t.Fatalf("%s still present after rmi", ref)
		}
	}
	loaded, err := Load(ctx, c, dir, log)
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range refs {
		if loaded.Local(ref) != ref {
			t.Errorf("%s loaded as %s", ref, loaded.Local(ref))
		}
		id, err := c.ImageID(ctx, ref)
		if err != nil {
			t.Errorf("%s not on the daemon after loading the bundle: %v", ref, err)
			continue
		}
		if id != ids[ref] {
			t.Errorf("%s: loaded image %s, saved %s", ref, id, ids[ref])
		}
	}
	// LoadOnce loads a bundle once per daemon, then trusts its record
	// while every image is still there.
	counting := &countingDaemon{CLI: c}
	record := t.TempDir() + "/images-loaded.json"
	for i := range 2 {
		if _, err := LoadOnce(ctx, counting, dir, record, log); err != nil {
			t.Fatal(err)
		}
		if counting.loads != len(refs) {
			t.Errorf("after LoadOnce #%d: %d archives loaded, want %d", i+1, counting.loads, len(refs))
		}
	}
	if err := c.RemoveImage(ctx, refs[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOnce(ctx, counting, dir, record, log); err != nil {
		t.Fatal(err)
	}
	if counting.loads != 2*len(refs) {
		t.Errorf("an image gone from the daemon did not make LoadOnce load again: %d loads", counting.loads)
	}
}

type countingDaemon struct {
	docker.CLI
	loads int
}

func (c *countingDaemon) Load(ctx context.Context, r io.Reader) ([]string, error) {
	c.loads++
	return c.CLI.Load(ctx, r)
}

// TestBundleDigestPinnedLoadsAsItsID: a digest-pinned reference cannot be
// named after loading (Docker keeps no digest for a loaded image), so the
// lab starts it by ID; a wrong ID in the index is refused.
func TestBundleDigestPinnedLoadsAsItsID(t *testing.T) {
	c := dockertest.Daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmp := "gpu-lab-test/pinned-node:" + strings.ReplaceAll(t.Name(), "/", "-")
	t.Cleanup(func() { _ = c.RemoveImage(context.Background(), tmp) })
	importTiny(t, ctx, c, tmp)
	id, err := c.ImageID(ctx, tmp)
	if err != nil {
		t.Fatal(err)
	}
	pinned := lab.Default().Versions.KindNodeImage
	dir := t.TempDir()
	log := slog.New(slog.DiscardHandler)
	if err := saveFile(ctx, c, tmp, dir+"/"+ArchiveName(pinned)); err != nil {
		t.Fatal(err)
	}
	if err := WriteIndex(dir, Index{Images: []Entry{{Ref: pinned, File: ArchiveName(pinned), ID: id}}}); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(ctx, c, dir, log)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Local(pinned) != id || !loaded.Has(pinned) {
		t.Errorf("%s loaded as %q, want its ID %s", pinned, loaded.Local(pinned), id)
	}
	if err := WriteIndex(dir, Index{Images: []Entry{{Ref: pinned, File: ArchiveName(pinned), ID: "sha256:0000"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, c, dir, log); err == nil || !strings.Contains(err.Error(), "re-create the bundle") {
		t.Errorf("a bundle whose archive is not the indexed image loaded: %v", err)
	}
}
