package preflight

import (
	"context"
	"fmt"
)

// Images is what the bundle check asks of the Docker daemon.
type Images interface {
	ImageExists(ctx context.Context, ref string) (bool, error)
}

// BundleHolds: with a bundle (up --images), a node image the bundle lacks
// (loaded is false) and the daemon does not have is the bundle's gap, not a
// registry problem — said without trying a pull the user chose to avoid (a
// rehearsal run showed the pull's "no registry access" advice instead:
// ci/hack/rehearsal/testdata/findings/2026-12-02-preflight-advice-with-bundle).
func BundleHolds(ctx context.Context, d Images, bundleDir, img string, loaded bool) error {
	if loaded {
		return nil
	}
	if ok, err := d.ImageExists(ctx, img); err != nil || ok {
		return err
	}
	return fmt.Errorf("preflight: the bundle %s holds no %s, and the Docker daemon does not have it: add it to "+
		"the bundle (`labctl images save %s` where a registry is reachable), or load it into the "+
		"daemon (docker load)", bundleDir, img, bundleDir)
}
