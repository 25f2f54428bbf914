package hostdaemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/progress"
)

// wrapperPackage is the import path of the runtime wrapper's main package.
const wrapperPackage = "github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/capfilter/runc-capfilter"

// BuildWrapper builds runc-capfilter as a static binary (CGO_ENABLED=0: it
// is also copied into node images, whose C library is not the host's) to
// out, from the gpu-lab checkout the current directory is in.
func BuildWrapper(ctx context.Context, out string) error {
	return BuildStatic(ctx, nil, wrapperPackage, "the runtime wrapper", out, noCommit)
}

// Stamp says whether a build records the checkout's commit, whatever
// GOFLAGS says (a machine may set -buildvcs=false in go env).
type Stamp string

const (
	// StampCommit records the commit where the checkout has one
	// (-buildvcs=auto): labctl, whose version the rehearsal's report
	// quotes.
	StampCommit Stamp = "auto"
	// noCommit leaves it out (-buildvcs=false): the runtime wrapper, whose
	// bytes go into node images and so into their cache keys, stays the
	// same from commit to commit.
	noCommit Stamp = "false"
)

// BuildStatic builds the main package pkg of the gpu-lab checkout the
// current directory is in as a static binary (CGO_ENABLED=0) to out: the
// runtime wrapper (copied into node images, whose C library is not the
// host's), and the labctl the rehearsal runs. what names the binary in
// errors and progress lines; a cold labctl build takes minutes, so with a
// log it says so at least every half minute (go build -v's packages, in
// out's build log). stamp says whether the binary records the commit.
func BuildStatic(ctx context.Context, log *slog.Logger, pkg, what, out string, stamp Stamp) error {
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
	logPath := out + ".build.log"
	f, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("build %s: %w", what, err)
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, "go", "build", "-v", "-trimpath", "-buildvcs="+string(stamp), "-o", out, pkg)
	cmd.Dir = filepath.Dir(mod)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = f, f
	start := time.Now()
	stop := func() {}
	if log != nil {
		log.Info("building "+what+" from this checkout (minutes when the Go build cache is cold)", "into", out, "log", logPath)
		stop = progress.Speak(ctx, log, what, logPath)
	}
	err = cmd.Run()
	stop()
	if err != nil {
		b, _ := os.ReadFile(logPath)
		return fmt.Errorf("build %s %s in %s: %w\n%s", what, pkg, cmd.Dir, err, b)
	}
	if log != nil {
		log.Info("built "+what, "took", time.Since(start).Round(time.Second).String())
	}
	return nil
}
