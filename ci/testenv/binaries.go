package testenv

import (
	"context"
	"log/slog"

	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// EnsureBinaries returns the directory of the Kubernetes binaries the
// environment runs, building them the first time (bincache.EnsureBinaries):
// Start calls it when Options.BinDir is empty, and `labctl testenv build`
// builds them ahead of the tests with it.
func EnsureBinaries(ctx context.Context, log *slog.Logger) (string, error) {
	return bincache.EnsureBinaries(ctx, log)
}
