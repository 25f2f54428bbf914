package nodeimage

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/docker"
)

// Docker is what Load needs of the daemon the node runs on (ci/stages
// Docker, ci/docker CLI).
type Docker interface {
	Exec(ctx context.Context, container string, stdin io.Reader, cmd ...string) ([]byte, error)
	Save(ctx context.Context, ref string, w io.Writer) error
	ImageTransfer(ctx context.Context) (docker.ImageTransfer, error)
}

// Load imports the image from the daemon into the node's containerd unless
// present, and tells whether it imported it.
func Load(ctx context.Context, d Docker, node, img string) (bool, error) {
	out, err := d.Exec(ctx, node, nil, "ctr", "--namespace=k8s.io", "images", "ls", "-q")
	// ctr lists normalized names (docker.io/..., registry.k8s.io/...).
	if err == nil && containsLine(string(out), docker.Normalize(img)) {
		return false, nil
	}
	return true, load(ctx, d, node, img)
}

// load streams `docker save img` into the node's `ctr images import`, with
// the snapshotter and platform the node's containerd uses.
func load(ctx context.Context, d Docker, node, img string) error {
	dump, err := d.Exec(ctx, node, nil, ContainerdConfigDumpCommand...)
	if err != nil {
		return fmt.Errorf("read the snapshotter of %s's containerd: %w", node, err)
	}
	snapshotter, err := containerdSnapshotter(dump)
	if err != nil {
		return fmt.Errorf("read the snapshotter of %s's containerd: %w", node, err)
	}
	ver, err := d.Exec(ctx, node, nil, ctrVersionCommand...)
	if err != nil {
		return fmt.Errorf("read the ctr version of %s: %w", node, err)
	}
	tr, err := d.ImageTransfer(ctx)
	if err != nil {
		return fmt.Errorf("import %s into %s: %w", img, node, err)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(d.Save(ctx, img, pw)) }()
	_, err = d.Exec(ctx, node, pr, ContainerdImportCommand(snapshotter, tr.Platform, ctrImportsLocally(ver))...)
	pr.Close()
	return err
}

func containsLine(s, want string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == want {
			return true
		}
	}
	return false
}
