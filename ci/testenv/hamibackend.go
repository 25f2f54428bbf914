package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// EnvHAMiBinary names a HAMi scheduler binary to run instead of the protocol
// double when Options.HAMiBinary and HAMiImage are empty: the way `go test`
// runs the suite against a real HAMi.
const EnvHAMiBinary = "GPU_LAB_HAMI_BINARY"

// DoubleName is how reports and status lines name the protocol double.
const DoubleName = "HAMi protocol double"

// hamiBackend is the program each tenant runs as HAMi's scheduler.
type hamiBackend struct {
	bin string
	// args come before HAMi's flags: "internal hami-double" for labctl.
	args []string
	// double: it is the protocol double and has its test controls.
	double bool
	// name is what reports call it: DoubleName, or "HAMi scheduler
	// <version> from <image>@sha256:…", or "HAMi scheduler <version> from
	// <path> …" (the version the binary reports, when it reports one).
	name string
}

// resolveHAMi chooses the HAMi scheduler from the options: an image's
// binary, a binary, $GPU_LAB_HAMI_BINARY, else the protocol double (from
// Options.DoubleBinary, or labctl built from this checkout).
func resolveHAMi(ctx context.Context, opts Options, log *slog.Logger) (hamiBackend, error) {
	if opts.HAMiImage != "" && opts.HAMiBinary != "" {
		return hamiBackend{}, fmt.Errorf("testenv: HAMiImage %q and HAMiBinary %q both set: choose one", opts.HAMiImage, opts.HAMiBinary)
	}
	if opts.HAMiImage != "" {
		b, err := extractHAMiScheduler(ctx, docker.CLI{}, opts.HAMiImage, opts.cacheRoot, log)
		if err != nil {
			return hamiBackend{}, err
		}
		if err := checkRunnable(b.Path); err != nil {
			return hamiBackend{}, fmt.Errorf("testenv: HAMi's scheduler from image %s: %w", opts.HAMiImage, err)
		}
		b.Version = probeHAMiVersion(ctx, b.Path)
		return hamiBackend{bin: b.Path, name: b.name()}, nil
	}
	bin, from := opts.HAMiBinary, "HAMiBinary"
	if bin == "" {
		getenv := opts.getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		bin, from = getenv(EnvHAMiBinary), "$"+EnvHAMiBinary
	}
	if bin != "" {
		abs, err := filepath.Abs(bin)
		if err != nil {
			return hamiBackend{}, err
		}
		sum, err := fileSHA256(abs)
		if err != nil {
			return hamiBackend{}, fmt.Errorf("testenv: %s=%s: %w; give the path of HAMi's scheduler binary (/k8s-vgpu/bin/scheduler in "+
				"projecthami/hami)", from, bin, err)
		}
		if err := checkRunnable(abs); err != nil {
			return hamiBackend{}, fmt.Errorf("testenv: %s=%s: %w", from, bin, err)
		}
		return hamiBackend{bin: abs, name: binaryName(probeHAMiVersion(ctx, abs), abs, sum)}, nil
	}
	double := opts.DoubleBinary
	if double == "" {
		var err error
		if double, err = bincache.EnsureDoubleBinary(ctx, log); err != nil {
			return hamiBackend{}, err
		}
	}
	return hamiBackend{bin: double, args: []string{"internal", "hami-double"}, double: true, name: DoubleName}, nil
}

// binaryName is how reports name a HAMi scheduler binary: "HAMi scheduler
// v2.10.0 (revision 4707fb02c91c) from PATH (sha256:…)" with the version it
// reports, "HAMi scheduler from PATH (sha256:…)" when it reports none.
func binaryName(v hamiVersion, path, sum string) string {
	version := ""
	if l := v.label(); l != "" {
		version = l + " "
		if r := v.Revision; r != "" && r != "unknown" {
			version = fmt.Sprintf("%s (revision %s) ", l, r[:min(12, len(r))])
		}
	}
	return fmt.Sprintf("HAMi scheduler %sfrom %s (sha256:%s)", version, path, sum[:12])
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", path)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// RunsDouble says whether the tenants' HAMi scheduler is the protocol
// double. Its test controls (Env.Double: faults, counters, state) exist
// only then; a test that needs them skips against a real HAMi, naming it.
func (e *Env) RunsDouble() bool { return e.hami.double }
