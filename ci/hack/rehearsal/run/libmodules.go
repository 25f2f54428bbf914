package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
)

// libModules is the host directory kind bind-mounts into every node
// read-only ("--volume", "/lib/modules:/lib/modules:ro": sigs.k8s.io/kind
// v0.33.0 pkg/cluster/internal/providers/docker/provision.go:239), and the
// lab's workers likewise (ci/docker KindNodeSpec). This machine has none;
// Docker would create it on the host as a side effect of the first node's
// `docker run` (a -v bind mount's missing source is created). The
// rehearsal creates it itself, empty, so that it is a listed adaptation
// and removed afterwards, not a silent change to the host.
const libModules = "/lib/modules"

// ensureDir creates dir (one level) when it is missing and says whether it
// did: only a directory the rehearsal made is removed afterwards. It is
// recorded before it is made.
func ensureDir(dir string, ch *hostdaemon.Changes) (made bool, err error) {
	st, err := os.Stat(dir)
	switch {
	case err == nil && st.IsDir():
		return false, nil
	case err == nil:
		return false, fmt.Errorf("%s exists and is not a directory: kind's nodes bind-mount it", dir)
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("look at %s: %w", dir, err)
	}
	if err := ch.AddDir(dir); err != nil {
		return false, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return false, errors.Join(fmt.Errorf("create the empty %s kind's nodes bind-mount: %w", dir, err), ch.Forget(dir))
	}
	return true, nil
}

// removeEmptyDir removes dir if it is empty (something may have put files
// into it meanwhile: then it stays and the error says so).
func removeEmptyDir(dir string) error {
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s, which the rehearsal created empty: %w", dir, err)
	}
	return nil
}
