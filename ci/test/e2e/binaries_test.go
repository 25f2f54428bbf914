package e2e

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// buildBound is how long the package waits for the binaries its
// environments run — the Kubernetes test binaries and labctl for the HAMi
// double — to be built or found in the cache. A first build takes 5–20 min
// on 2 cores (longer under load); a warm cache answers in about a second.
// It is the build's own bound: no test's boot budget includes the build.
const buildBound = 60 * time.Minute

// errBuildBound is the cause a build that outlasts buildBound is ended with,
// so the error names the bound, not only "context deadline exceeded".
var errBuildBound = fmt.Errorf("ci/test/e2e's bound for building the environment's binaries (%s)", buildBound)

// binaries builds (or finds) every binary an environment runs, once for
// the package, before any environment's boot budget starts. Its progress
// lines go to stderr, as the environments' logs do.
var binaries = sync.OnceValue(func() error {
	ctx, cancel := context.WithTimeoutCause(context.Background(), buildBound, errBuildBound)
	defer cancel()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if _, err := bincache.EnsureBinaries(ctx, log); err != nil {
		return err
	}
	if _, err := bincache.EnsureDoubleBinary(ctx, log); err != nil {
		return fmt.Errorf("build labctl for the HAMi protocol double: %w", err)
	}
	return nil
})

// withBinaries runs boot once the binaries are there, so boot's own
// deadline (made inside it) counts only the boot.
func withBinaries[T any](boot func() (T, error)) (T, error) {
	if err := binaries(); err != nil {
		var zero T
		return zero, errors.Join(errors.New("the environment was not started"), err)
	}
	return boot()
}
