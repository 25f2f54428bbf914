package images

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/docker/dockertest"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// importTiny creates a one-file image named ref with docker import: no
// registry is reachable here, so the lab's images are stood in for by tiny
// ones under the same names.
func importTiny(ctx context.Context, c docker.CLI, ref string) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	body := []byte("stands in for " + ref + "\n")
	if err := tw.WriteHeader(&tar.Header{Name: "ref", Mode: 0o644, Size: int64(len(body))}); err != nil {
		return err
	}
	tw.Write(body)
	tw.Close()
	return c.Import(ctx, &buf, ref, "LABEL "+standInLabel+"=true")
}

// standInLabel marks the tiny images importTiny makes, so that one left by
// an interrupted run is told apart from a real image under the same name.
const standInLabel = "dev.gpu-lab.test-stand-in"

// heldByDaemon lists the refs the daemon holds as images other than this
// package's stand-ins: one docker command lists the daemon's names, and only
// a ref found there is inspected for the stand-ins' label.
func heldByDaemon(ctx context.Context, t *testing.T, c docker.CLI, refs []string) []string {
	t.Helper()
	out, err := c.Run(ctx, "image", "ls", "--format", "{{.Repository}}:{{.Tag}}")
	if err != nil {
		t.Fatalf("docker image ls: %v", err)
	}
	names := map[string]bool{}
	for _, n := range strings.Fields(string(out)) {
		names[Normalize(n)] = true
	}
	var held []string
	for _, ref := range refs {
		if !names[Normalize(ref)] {
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

// forEach calls fn for every ref, several at once, and fails the test with
// the first error: each call is a docker command that mostly waits on the
// daemon, and the lab has ~17 references.
func forEach(t *testing.T, refs []string, fn func(i int, ref string) error) {
	t.Helper()
	p := pool.New().WithErrors().WithFirstError().WithMaxGoroutines(8)
	for i, ref := range refs {
		p.Go(func() error { return fn(i, ref) })
	}
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
}

// tinies imports one stand-in per ref and returns their IDs.
func tinies(t *testing.T, ctx context.Context, c docker.CLI, refs []string) map[string]string {
	t.Helper()
	t.Cleanup(func() {
		// One command: with --force, docker rmi removes every image it has
		// and passes over those it has not.
		_, _ = c.Run(context.Background(), append([]string{"rmi", "--force"}, refs...)...)
	})
	forEach(t, refs, func(_ int, ref string) error { return importTiny(ctx, c, ref) })
	ids, err := c.ImageIDs(ctx, refs...)
	if err != nil || len(ids) != len(refs) {
		t.Fatalf("IDs of the stand-ins: %v, %v", ids, err)
	}
	out := map[string]string{}
	for i, ref := range refs {
		out[ref] = ids[i]
	}
	return out
}

// TestBundleRoundTripOnTheRealDaemon saves the lab's bundle (every image
// `labctl images` says a bundle holds, digest-pinned ones aside) from the
// real daemon, removes the images, loads the bundle back and finds every
// image under its name with its ID.
func TestBundleRoundTripOnTheRealDaemon(t *testing.T) {
	t.Parallel() // the package's other daemon tests use names of their own
	c := dockertest.Daemon(t)
	// The lab's real names are shared by every run of this test on the
	// daemon: one run at a time.
	dockertest.Exclusive(t, "images-bundle-round-trip")
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
		t.Skipf("the daemon already holds %v; this test would replace them with tiny stand-ins and delete them "+
			"— run it on a daemon without the lab's images (CI's is empty)", held)
	}
	ids := tinies(t, ctx, c, refs)
	dir := t.TempDir()
	log := slog.New(slog.DiscardHandler)
	idx, err := Save(ctx, c, refs, dir, time.Second, log)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Images) != len(refs) {
		t.Fatalf("index holds %d images, want %d", len(idx.Images), len(refs))
	}
	for i, e := range idx.Images {
		if e.Ref != refs[i] || e.ID != ids[e.Ref] {
			t.Errorf("index entry %d is %s (%s), want %s (%s): the index keeps the order asked for", i, e.Ref, e.ID, refs[i], ids[refs[i]])
		}
	}
	if _, err := c.Run(ctx, append([]string{"rmi", "--force"}, refs...)...); err != nil {
		t.Fatal(err)
	}
	if left, _ := inspectIDs(ctx, c, refs); len(left) > 0 {
		t.Fatalf("%d of the images still present after rmi: %v", len(left), left)
	}
	loaded, err := Load(ctx, c, dir, log)
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range refs {
		if loaded.Local(ref) != ref {
			t.Errorf("%s loaded as %s", ref, loaded.Local(ref))
		}
	}
	after, err := c.ImageIDs(ctx, refs...)
	if err != nil || len(after) != len(refs) {
		t.Fatalf("not every image is on the daemon after loading the bundle: %d IDs for %d images, %v", len(after), len(refs), err)
	}
	for i, ref := range refs {
		if after[i] != ids[ref] {
			t.Errorf("%s: loaded image %s, saved %s", ref, after[i], ids[ref])
		}
	}
}

// inspectIDs returns the IDs of those of refs the daemon still has, from
// one docker command: docker image inspect prints a line for each image it
// finds and fails for the others.
func inspectIDs(ctx context.Context, c docker.CLI, refs []string) ([]string, error) {
	out, err := c.Run(ctx, append([]string{"image", "inspect", "--format", "{{.Id}}"}, refs...)...)
	return strings.Fields(string(out)), err
}

// LoadOnce loads a bundle once per daemon, then trusts its record while
// every image is still there, and loads again when one is gone. Two
// images of names no other run uses are enough.
func TestBundleLoadOnceOnTheRealDaemon(t *testing.T) {
	t.Parallel() // on names of its own (dockertest.UniqueName)
	c := dockertest.Daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	refs := []string{dockertest.UniqueName("gpu-lab-test/once") + ":a", dockertest.UniqueName("gpu-lab-test/once") + ":b"}
	tinies(t, ctx, c, refs)
	dir := t.TempDir()
	log := slog.New(slog.DiscardHandler)
	if _, err := Save(ctx, c, refs, dir, time.Second, log); err != nil {
		t.Fatal(err)
	}
	counting := &countingDaemon{CLI: c}
	record := t.TempDir() + "/images-loaded.json"
	for i := range 2 {
		if _, err := LoadOnce(ctx, counting, dir, record, LoadOptions{}, log); err != nil {
			t.Fatal(err)
		}
		if got := counting.loads.Load(); got != int64(len(refs)) {
			t.Errorf("after LoadOnce #%d: %d archives loaded, want %d", i+1, got, len(refs))
		}
	}
	if err := c.RemoveImage(ctx, refs[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOnce(ctx, counting, dir, record, LoadOptions{}, log); err != nil {
		t.Fatal(err)
	}
	if got := counting.loads.Load(); got != int64(2*len(refs)) {
		t.Errorf("an image gone from the daemon did not make LoadOnce load again: %d loads", got)
	}
}

// countingDaemon counts archives loaded (Load runs several at once).
type countingDaemon struct {
	docker.CLI
	loads atomic.Int64
}

func (c *countingDaemon) Load(ctx context.Context, r io.Reader) ([]string, error) {
	c.loads.Add(1)
	return c.CLI.Load(ctx, r)
}

// TestBundleDigestPinnedLoadsAsItsID: a digest-pinned reference cannot be
// named after loading (Docker keeps no digest for a loaded image), so the
// lab starts it by ID; a wrong ID in the index is refused.
func TestBundleDigestPinnedLoadsAsItsID(t *testing.T) {
	t.Parallel() // on names of its own (dockertest.UniqueName)
	c := dockertest.Daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmp := dockertest.UniqueName("gpu-lab-test/pinned-node") + ":test"
	t.Cleanup(func() { _ = c.RemoveImage(context.Background(), tmp) })
	if err := importTiny(ctx, c, tmp); err != nil {
		t.Fatal(err)
	}
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
