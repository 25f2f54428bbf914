package nodeimage

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker"
)

// EnvContainerdDir names a directory holding `containerd` and `ctr` of the
// version kind v0.33.0's node images ship, v2.3.4 (containerd.go), built
// outside the tree, e.g.
//
//	GOBIN=~/.cache/gpu-lab/containerd-v2.3.4 CGO_ENABLED=0 go install \
//	  github.com/containerd/containerd/v2/cmd/ctr@v2.3.4 \
//	  github.com/containerd/containerd/v2/cmd/containerd@v2.3.4
//
// TestContainerdImportWithRealCtr runs them (as root) when it is set.
const EnvContainerdDir = "GPU_LAB_CONTAINERD_DIR"

// TestContainerdImportWithRealCtr starts a private containerd (its root,
// state and sockets in a temporary directory; the CRI plugins off, so it
// opens no port) and imports archives into it with ContainerdImportCommand,
// for the snapshotters a kindest/node uses: overlayfs, and native as the
// entrypoint picks on zfs (fuse-overlayfs needs its own daemon; it fails
// the transfer service's unpack exactly as native does, being no
// overlayfs). It also shows the failures the command avoids, with kind's
// own command and with --platform left out.
//
// The archives: `docker save` of an image from the real daemon (a
// classic-store archive, when a daemon answers), and two OCI archives shaped
// as Docker's containerd image store saves a pulled image — index.json
// naming the image's index, which lists the host's manifest (present) and
// another platform's (absent), as containerd PR 12908 describes them. No
// daemon with that store runs here, so they are built by the test.
func TestContainerdImportWithRealCtr(t *testing.T) {
	dir := os.Getenv(EnvContainerdDir)
	if dir == "" {
		t.Skipf("skipping: set %s to a directory with containerd and ctr v2.3.4", EnvContainerdDir)
	}
	if os.Geteuid() != 0 {
		t.Skip("skipping: containerd needs root")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ctr := startContainerd(t, ctx, dir)
	host := runtime.GOOS + "/" + runtime.GOARCH
	other := "linux/arm64"
	if runtime.GOARCH == "arm64" {
		other = "linux/amd64"
	}

	archives := map[string][]byte{
		"containerd store, absent " + other:  storeShapedArchive(t, "gpu-lab-test/other:1", other),
		"containerd store, absent linux/386": storeShapedArchive(t, "gpu-lab-test/i386:1", "linux/386"),
	}
	names := map[string]string{ // the name each archive's image gets
		"containerd store, absent " + other:  "docker.io/gpu-lab-test/other:1",
		"containerd store, absent linux/386": "docker.io/gpu-lab-test/i386:1",
	}
	if runtime.GOARCH != "amd64" {
		delete(archives, "containerd store, absent linux/386") // the loose match is amd64's
	}
	if saved, ref := dockerSavedArchive(t, ctx); saved != nil {
		archives["docker save (classic store)"] = saved
		names["docker save (classic store)"] = "docker.io/library/" + ref
	}
	for name, archive := range archives {
		for _, sn := range []string{"overlayfs", "native"} {
			t.Run(name+", "+sn, func(t *testing.T) {
				if _, err := ctr([]string{"ctr", "--namespace=k8s.io", "images", "rm", "--sync", names[name]}, nil); err != nil {
					t.Logf("no %s to remove before the import", names[name])
				}
				out, err := ctr(ContainerdImportCommand(sn, host, true), archive)
				if err != nil {
					t.Fatalf("%s: %v\n%s", strings.Join(ContainerdImportCommand(sn, host, true), " "), err, out)
				}
				ls, err := ctr([]string{"ctr", "--namespace=k8s.io", "images", "ls", "-q"}, nil)
				if err != nil || !containsLine(string(ls), names[name]) {
					t.Fatalf("after the import images ls = %q, %v; want %s", ls, err, names[name])
				}
			})
		}
	}

	// What the command avoids.
	for _, tt := range []struct {
		name, archive, errHas string
		cmd                   []string
	}{
		{"kind's --all-platforms", "containerd store, absent " + other, "not found",
			[]string{"ctr", "--namespace=k8s.io", "images", "import", "--all-platforms", "--digests", "--snapshotter=overlayfs", "-"}},
		{"the transfer service with native", "containerd store, absent " + other, "no unpack platforms defined",
			[]string{"ctr", "--namespace=k8s.io", "images", "import", "--platform=" + host, "--digests", "--snapshotter=native", "-"}},
		{"local without --platform", "containerd store, absent linux/386", "not found",
			[]string{"ctr", "--namespace=k8s.io", "images", "import", "--local", "--digests", "--snapshotter=native", "-"}},
	} {
		t.Run("fails: "+tt.name, func(t *testing.T) {
			a, ok := archives[tt.archive]
			if !ok {
				t.Skipf("no archive %q on %s", tt.archive, host)
			}
			out, err := ctr(tt.cmd, a)
			if err == nil || !strings.Contains(string(out), tt.errHas) {
				t.Fatalf("%s: err = %v, want %q in\n%s", strings.Join(tt.cmd, " "), err, tt.errHas, out)
			}
		})
	}
}

// startContainerd runs containerd from dir on private paths and returns a
// function that runs a ctr command line (starting with "ctr") against it.
func startContainerd(t *testing.T, ctx context.Context, dir string) func(cmd []string, stdin []byte) ([]byte, error) {
	t.Helper()
	tmp := t.TempDir()
	sock := filepath.Join(tmp, "containerd.sock")
	config := fmt.Sprintf(`version = 3
root = %q
state = %q
disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime", "io.containerd.cri.v1.images", "io.containerd.nri.v1.nri"]
[grpc]
  address = %q
[ttrpc]
  address = %q
[debug]
  address = %q
`, filepath.Join(tmp, "root"), filepath.Join(tmp, "state"), sock, sock+".ttrpc", filepath.Join(tmp, "debug.sock"))
	cfg := filepath.Join(tmp, "config.toml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	d := exec.Command(filepath.Join(dir, "containerd"), "--config", cfg)
	d.Stdout, d.Stderr = &log, &log
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = d.Process.Kill()
		_ = d.Wait()
		// The snapshotters may leave mounts under root.
		_ = exec.Command("umount", "-R", filepath.Join(tmp, "root")).Run()
	})
	run := func(cmd []string, stdin []byte) ([]byte, error) {
		args := append([]string{"--address", sock}, cmd[1:]...)
		c := exec.CommandContext(ctx, filepath.Join(dir, "ctr"), args...)
		c.Stdin = bytes.NewReader(stdin)
		return c.CombinedOutput()
	}
	// containerd answers once its socket serves; poll it, bounded.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := run([]string{"ctr", "version"}, nil); err == nil {
			return run
		}
		if time.Now().After(deadline) {
			t.Fatalf("containerd did not answer on %s within 30 s:\n%s", sock, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// storeShapedArchive is an OCI image layout tar as Docker's containerd
// image store saves a pulled multi-platform image: index.json names the
// image index (annotated with the image name), which lists a manifest for
// the host's platform, present with its config and one layer, and one for
// absent, whose blob is not in the archive.
func storeShapedArchive(t *testing.T, name, absent string) []byte {
	t.Helper()
	blobs := map[string][]byte{}
	add := func(b []byte) (string, int) {
		sum := sha256.Sum256(b)
		d := "sha256:" + hex.EncodeToString(sum[:])
		blobs[d] = b
		return d, len(b)
	}
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	tw.WriteHeader(&tar.Header{Name: "hello", Mode: 0o644, Size: 3})
	tw.Write([]byte("hi\n"))
	tw.Close()
	ld, ls := add(layer.Bytes())
	cfg, _ := json.Marshal(map[string]any{"architecture": runtime.GOARCH, "os": "linux",
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{ld}}, "config": map[string]any{}})
	cd, cs := add(cfg)
	man, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
		"config": map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": cd, "size": cs},
		"layers": []any{map[string]any{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": ld, "size": ls}}})
	md, ms := add(man)
	pos, arch, _ := strings.Cut(absent, "/")
	missing := sha256.Sum256([]byte("the manifest of " + absent + " is not in the archive"))
	idx, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": []any{
		map[string]any{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": md, "size": ms,
			"platform": map[string]any{"os": "linux", "architecture": runtime.GOARCH}},
		map[string]any{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": "sha256:" + hex.EncodeToString(missing[:]),
			"size": 500, "platform": map[string]any{"os": pos, "architecture": arch}},
	}})
	xd, xs := add(idx)
	_, tag, _ := strings.Cut(name, ":")
	top, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": []any{
		map[string]any{"mediaType": "application/vnd.oci.image.index.v1+json", "digest": xd, "size": xs,
			"annotations": map[string]string{"io.containerd.image.name": "docker.io/" + name, "org.opencontainers.image.ref.name": tag}},
	}})
	var out bytes.Buffer
	w := tar.NewWriter(&out)
	put := func(n string, b []byte) {
		if err := w.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(b))}); err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	put("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`))
	put("index.json", top)
	for d, b := range blobs {
		put("blobs/sha256/"+strings.TrimPrefix(d, "sha256:"), b)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// dockerSavedArchive is `docker save` of a one-file image from the real
// daemon and its reference, or nil when none answers.
func dockerSavedArchive(t *testing.T, ctx context.Context) ([]byte, string) {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		return nil, ""
	}
	c := docker.CLI{}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := c.Ping(pctx); err != nil {
		t.Logf("no docker save archive: %v", err)
		return nil, ""
	}
	var rootfs bytes.Buffer
	tw := tar.NewWriter(&rootfs)
	tw.WriteHeader(&tar.Header{Name: "hello", Mode: 0o644, Size: 3})
	tw.Write([]byte("hi\n"))
	tw.Close()
	sum := sha256.Sum256([]byte(t.Name() + time.Now().String()))
	ref := "gpu-lab-test-ctr-" + hex.EncodeToString(sum[:4]) + ":test"
	if err := c.Import(ctx, &rootfs, ref); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.RemoveImage(context.Background(), ref) })
	var out bytes.Buffer
	if err := c.Save(ctx, ref, &out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), ref
}
