package nodeimage

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/rootfs"
)

// EnvDockerTest opts in to the test that builds a node image on the Docker
// daemon (DOCKER_HOST): it needs root, debootstrap, Debian's archive (or
// the rehearsal cache's packages) and minutes.
const EnvDockerTest = "GPU_LAB_REHEARSAL_DOCKER_TEST"

// The node image pipeline end to end, with stand-in Kubernetes binaries:
// the Debian root file system, the base node image (kind's layout, the
// RUN steps), and one image imported into the node's containerd by
// Preload, found there by its name.
func TestNodeImageOnDocker(t *testing.T) {
	if os.Getenv(EnvDockerTest) == "" {
		t.Skipf("set %s=1 to build a node image on Docker (minutes)", EnvDockerTest)
	}
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	root, err := cache.Root()
	if err != nil {
		t.Fatal(err)
	}
	d := docker.CLI{}
	fs, err := rootfs.Make(ctx, log, root, RootFS)
	if err != nil {
		t.Fatal(err)
	}
	base, err := rootfs.Import(ctx, d, log, RootFS, fs)
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, b := range []string{"kubelet", "kubeadm", "kubectl", "crictl"} {
		if err := os.WriteFile(filepath.Join(bin, b), []byte("#!/bin/sh\necho stand-in "+b+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	kf, err := ReadKindFiles(kindModuleDir(t))
	if err != nil {
		t.Fatal(err)
	}
	in := Inputs{Version: "v0.0.0-test", BinDir: bin, Crictl: filepath.Join(bin, "crictl"), Kind: kf,
		Containerd: ContainerdOptions{SandboxImage: "registry.k8s.io/pause:3.10"}}
	work := t.TempDir()
	baseRef := "gpu-lab-rehearsal/node-base:test"
	if _, err := imagespec.Build(ctx, d, log, BaseSpec(baseRef, base, in), filepath.Join(work, "ctx"),
		filepath.Join(work, "base.log")); err != nil {
		t.Fatal(err)
	}
	// A one-file image stands in for a preload: the import is what is
	// proven (Preload checks that containerd lists it by name).
	preload := "registry.k8s.io/gpu-lab-test:1"
	p := imagespec.Spec{Ref: preload, Base: "scratch", Files: []imagespec.File{{Dest: "/x", Mode: 0o644, Data: []byte("x")}}}
	if _, err := imagespec.Build(ctx, d, log, p, filepath.Join(work, "pctx"), filepath.Join(work, "p.log")); err != nil {
		t.Fatal(err)
	}
	node := "gpu-lab-rehearsal/node-test:1"
	if _, err := Preload(ctx, d, log, node, baseRef, []string{preload}, filepath.Join(work, "preload.log")); err != nil {
		b, _ := os.ReadFile(filepath.Join(work, "preload.log"))
		t.Fatalf("%v\n%s", err, b)
	}
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", node, preload, baseRef).Run() })
	out, err := exec.Command("docker", "run", "--rm", "--entrypoint", "cat", node, "/kind/version",
		"/etc/containerd/cri-base.json").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "v0.0.0-test") || !strings.Contains(string(out), "mount-product-files.sh") {
		t.Errorf("node files: %v\n%s", err, out)
	}
	// The committed node keeps containerd's content (the blobs) and the
	// units kind enables.
	out, err = exec.Command("docker", "run", "--rm", "--entrypoint", "sh", node, "-c",
		"ls /var/lib/containerd/io.containerd.content.v1.content/blobs/sha256 | wc -l; ls "+
			"/etc/systemd/system/multi-user.target.wants/").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "kubelet.service") || !strings.Contains(string(out), "containerd.service") {
		t.Errorf("node state: %v\n%s", err, out)
	}
}
