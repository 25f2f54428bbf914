package imagebuild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
)

// The rehearsal's HAMi image cannot hold HAMi-core's libvgpu.so (built
// against CUDA's headers; the difference is listed), yet HAMi's device
// plugin hands one to every GPU container: Allocate mounts
// <hook>/vgpu/libvgpu.so.<version>, else <hook>/vgpu/libvgpu.so, from the
// node (HAMi pkg/device-plugin/nvidiadevice/nvinternal/plugin/util.go:45-50,
// server.go:855-858@v2.10.0), and /etc/ld.so.preload naming it (:879-883),
// which vgpu-init.sh writes after copying /k8s-vgpu/lib/nvidia to the node
// (docker/vgpu-init.sh). A missing file would make the container runtime
// create a directory in its place and ld.so complain in every process, so
// the image gets a shared object with nothing in it where the release puts
// libvgpu.so.<version> (docker/Dockerfile.hamimaster:31): it preloads
// silently and changes nothing.

// libvgpuStubPath is where HAMi's release image holds HAMi-core's library.
func libvgpuStubPath() string { return "/k8s-vgpu/lib/nvidia/libvgpu.so." + hamiVersion }

// libvgpuStubArgs are gcc's arguments for an empty shared object at out:
// no source (the empty file), no C library, no start files.
func libvgpuStubArgs(out string) []string {
	return []string{"-shared", "-nostdlib", "-x", "c", "/dev/null", "-o", out}
}

// libvgpuStub builds the empty shared object once into the cache.
func libvgpuStub(ctx context.Context, b *builder) (string, error) {
	dir := filepath.Join(b.root(), "libvgpu-stub-"+hamiVersion)
	out := filepath.Join(dir, "libvgpu.so."+hamiVersion)
	err := cache.Fill(ctx, b.o.Log, "empty libvgpu.so", dir, func(partial, logPath string) error {
		cmd := exec.CommandContext(ctx, "gcc", libvgpuStubArgs(filepath.Join(partial, filepath.Base(out)))...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			_ = os.WriteFile(logPath, msg, 0o644)
			return fmt.Errorf("empty libvgpu.so for HAMi's image: gcc: %w: %s", err, msg)
		}
		return nil
	})
	return out, err
}

// withLibvgpuStub adds the stub to HAMi's image spec.
func withLibvgpuStub(s imagespec.Spec, stub string) imagespec.Spec {
	s.Files = append(s.Files, imagespec.File{Dest: libvgpuStubPath(), Mode: 0o755, Src: stub})
	return s
}
