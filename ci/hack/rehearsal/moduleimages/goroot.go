package moduleimages

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/rootfs"
)

// hostGo is the machine's Go toolchain: its GOROOT and version. It goes
// into golang:1.26 as the published image holds go.dev's release
// archive, at /usr/local/go.
func hostGo(ctx context.Context) (goroot, version string, err error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOROOT", "GOVERSION").Output()
	if err != nil {
		return "", "", fmt.Errorf("go env GOROOT GOVERSION: %w", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || !strings.HasPrefix(f[1], "go1.26.") {
		return "", "", fmt.Errorf("the machine's Go is %q; golang:1.26 needs a go1.26.x toolchain (https://go.dev/dl)",
			strings.TrimSpace(string(out)))
	}
	return f[0], f[1], nil
}

// goBaseRef is the base image holding the root file system and Go.
func goBaseRef(s rootfs.Spec, version string) (ref, key string) {
	key = cache.Key(s.Key(), version)
	return "gpu-lab-rehearsal/rootfs-" + s.Name + ":" + key, key
}

// tarWithGo is the tar command packing root file system fs with goroot
// added as /usr/local/go (symlink targets inside GOROOT left as they are).
func tarWithGo(fs, goroot string) []string {
	base := filepath.Base(goroot)
	return []string{"tar", "--numeric-owner", "--xattrs", "-c", "-C", fs, ".",
		"-C", filepath.Dir(goroot), "--transform", "s,^" + base + ",./usr/local/go,S", base}
}

// importWithGo imports fs plus the Go toolchain as a base image, unless
// the daemon has it already.
func importWithGo(ctx context.Context, d imagespec.Docker, log *slog.Logger, s rootfs.Spec, fs, goroot, version string) (string, error) {
	ref, key := goBaseRef(s, version)
	if imagespec.Built(ctx, d, ref, key) {
		return ref, nil
	}
	args := tarWithGo(fs, goroot)
	tar := exec.CommandContext(ctx, args[0], args[1:]...)
	out, err := tar.StdoutPipe()
	if err != nil {
		return "", err
	}
	var tarErr strings.Builder
	tar.Stderr = &tarErr
	if err := tar.Start(); err != nil {
		return "", fmt.Errorf("golang base: tar: %w", err)
	}
	_, ierr := d.RunIO(ctx, out, nil, "import", "--change", "LABEL "+imagespec.KeyLabel+"="+key, "-", ref)
	werr := tar.Wait()
	if ierr != nil {
		return "", fmt.Errorf("golang base: docker import %s: %w", ref, ierr)
	}
	if werr != nil {
		return "", fmt.Errorf("golang base: tar of %s and %s: %w: %s", fs, goroot, werr, tarErr.String())
	}
	log.Info("imported root file system with Go", "image", ref, "go", version)
	return ref, nil
}
