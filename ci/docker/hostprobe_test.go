package docker

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestParseHostProbe reads HostProbeScript's recorded output
// (testdata/host-probe/README.md) and rejects what is not that shape.
func TestParseHostProbe(t *testing.T) {
	rec, err := os.ReadFile("testdata/host-probe/debian12-coreutils-9.1.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseHostProbe(string(rec))
	if err != nil {
		t.Fatal(err)
	}
	// The recording: 192530, 128, "17706718 4096".
	if want := (HostProbe{MaxUserWatches: 192530, MaxUserInstances: 128, FreeBytes: 17706718 * 4096}); got != want {
		t.Errorf("recorded probe = %+v, want %+v", got, want)
	}
	for _, tt := range []struct{ name, out, errHas string }{
		{"stat missing", "192530\n128\n", "want 3 lines"},
		{"watches not a number", "x\n128\n1 4096\n", "max_user_watches"},
		{"instances not a number", "1\n-\n1 4096\n", "max_user_instances"},
		{"free space one field", "1\n2\n4096\n", "want \"<blocks> <block size>\""},
		{"free space not numbers", "1\n2\na b\n", "free space line"},
		{"nothing", "", "want 3 lines"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseHostProbe(tt.out); err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("err = %v, want %q", err, tt.errHas)
			}
		})
	}
}

// TestDaemonHostProbeNamesPrivilegedRefusal runs the probe on the real
// daemon from the one-file test image (no shell in it). Whether the daemon
// allows privileged containers is first asked of docker itself; the probe
// must then fail as ErrPrivilegedRefused, naming the fix, exactly when it
// does not (this machine's Docker 20.10: "unable to apply caps"), and
// otherwise fail for the missing shell, not as a refusal.
func TestDaemonHostProbeNamesPrivilegedRefusal(t *testing.T) {
	t.Parallel() // its image has a name of its own
	c := daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	img := tinyImage(t, ctx, c)
	_, rawErr := c.Run(ctx, "run", "--rm", "--pull", "never", "--privileged", img, "/tiny", "echo", "ok")
	refused := rawErr != nil
	if refused {
		t.Logf("this daemon refuses privileged containers: %v", rawErr)
	}
	_, err := c.ProbeHost(ctx, img, false)
	if err == nil {
		t.Fatal("the probe succeeded in an image without a shell")
	}
	if errors.Is(err, ErrPrivilegedRefused) != refused {
		t.Fatalf("ProbeHost err = %v; privileged refused by the daemon = %v", err, refused)
	}
	if refused {
		for _, want := range []string{"unable to apply caps", "--privileged", "runs as root"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("refusal %q does not say %q", err, want)
			}
		}
	}
}

// ImageSizes answers in the order asked, as docker image inspect's .Size.
func TestDaemonImageSizes(t *testing.T) {
	t.Parallel() // its images have names of their own
	c := daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := tinyImage(t, ctx, c)
	b := uniqueName(t, "gpu-lab-test-empty") + ":test"
	if err := c.Import(ctx, bytes.NewReader(emptyTar(t)), b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.RemoveImage(context.Background(), b) })
	sizes, err := c.ImageSizes(ctx, b, a)
	if err != nil {
		t.Fatal(err)
	}
	// The tiny image holds one static Go binary of at least a few hundred
	// KB; the empty one nothing.
	if len(sizes) != 2 || sizes[0] != 0 || sizes[1] < 100<<10 {
		t.Fatalf("ImageSizes(empty, tiny) = %v, want [0, >= 100 KiB]", sizes)
	}
	if _, err := c.ImageSizes(ctx, uniqueName(t, "gpu-lab-test-missing")+":none"); !IsNotFound(err) {
		t.Fatalf("size of a missing image: err = %v, want not found", err)
	}
}
