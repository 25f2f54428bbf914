package stages

import (
	"context"
	"fmt"
	"slices"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// PreflightImages are the images the selected stages start containers from;
// `labctl up` makes sure the daemon has (or can pull) them before creating
// anything, so a daemon without registry access fails in seconds.
func PreflightImages(l *lab.Lab, only string) []string {
	var out []string
	if Selected(Cluster, only) {
		out = append(out, l.Versions.KindNodeImage)
	}
	if Selected(Workers, only) {
		if img := l.Versions.WorkerImage(); !slices.Contains(out, img) {
			out = append(out, img)
		}
	}
	return out
}

// Preflight checks the daemon answers and has the images the run needs.
func Preflight(ctx context.Context, e *Env, only string) error {
	if _, err := e.Docker.Ping(ctx); err != nil {
		return err
	}
	for _, img := range PreflightImages(e.Lab, only) {
		// An image from the bundle is on the daemon under its local name.
		if err := e.Docker.EnsureImage(ctx, e.localImage(img), e.Timeouts.Pull); err != nil {
			return fmt.Errorf("preflight: %w", err)
		}
	}
	return nil
}
