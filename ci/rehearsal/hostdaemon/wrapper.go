package hostdaemon

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// wrapperPackage is the import path of the runtime wrapper's main package.
const wrapperPackage = "github.com/gpu-lab/gpu-lab/ci/rehearsal/capfilter/runc-capfilter"

// BuildWrapper builds runc-capfilter as a static binary (CGO_ENABLED=0: it
// is also copied into node images, whose C library is not the host's) to
// out, from the gpu-lab checkout the current directory is in.
func BuildWrapper(ctx context.Context, out string) error {
	return BuildStatic(ctx, wrapperPackage, "the runtime wrapper", out)
}

// BuildStatic builds the main package pkg of the gpu-lab checkout the
// current directory is in as a static binary (CGO_ENABLED=0) to out: the
// runtime wrapper (copied into node images, whose C library is not the
// host's), and the labctl the rehearsal runs. what names the binary in
// errors.
func BuildStatic(ctx context.Context, pkg, what, out string) error {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("build %s: no Go toolchain (`go env GOMOD`: %w); pass a built binary instead", what, err)
	}
	mod := strings.TrimSpace(string(gomod))
	if mod == "" || mod == os.DevNull {
		return fmt.Errorf("build %s: run from the gpu-lab checkout (the current directory is in no Go module), or pass a built binary", what)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, pkg)
	cmd.Dir = filepath.Dir(mod)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s %s in %s: %w\n%s", what, pkg, cmd.Dir, err, b)
	}
	return nil
}
