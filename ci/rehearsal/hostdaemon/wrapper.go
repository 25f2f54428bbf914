package hostdaemon

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// WrapperPackage is the import path of the runtime wrapper's main package.
const WrapperPackage = "github.com/gpu-lab/gpu-lab/ci/rehearsal/capfilter/runc-capfilter"

// BuildWrapper builds runc-capfilter as a static binary (CGO_ENABLED=0: it
// is also copied into node images, whose C library is not the host's) to
// out, from the gpu-lab checkout the current directory is in.
func BuildWrapper(ctx context.Context, out string) error {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("build the runtime wrapper: no Go toolchain (`go env GOMOD`: %w); pass a built runc-capfilter instead", err)
	}
	mod := strings.TrimSpace(string(gomod))
	if mod == "" || mod == os.DevNull {
		return fmt.Errorf("build the runtime wrapper: run from the gpu-lab checkout (the current directory is in no Go module), or pass a built runc-capfilter")
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, WrapperPackage)
	cmd.Dir = filepath.Dir(mod)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the runtime wrapper %s in %s: %w\n%s", WrapperPackage, cmd.Dir, err, b)
	}
	return nil
}
