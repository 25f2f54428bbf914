package nodeimage

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/docker"
)

// Docker is what Load needs of the daemon the node runs on (ci/stages
// Docker, ci/docker CLI).
type Docker interface {
	Exec(ctx context.Context, container string, stdin io.Reader, cmd ...string) ([]byte, error)
	// SaveAll streams one archive holding every image of refs (docker save
	// ref...).
	SaveAll(ctx context.Context, refs []string, w io.Writer) error
	ImageTransfer(ctx context.Context) (docker.ImageTransfer, error)
}

// Load imports the images of refs the node's containerd lacks from the
// daemon, and returns those it imported. They travel in one archive
// through one `ctr images import`, as kind loads images (kind v0.33.0
// pkg/cmd/kind/load/docker-image/docker-image.go:173-193: one `docker save`
// of every image, one LoadImageArchive per node): the node's containerd
// configuration and ctr version are read once, not once per image.
func Load(ctx context.Context, d Docker, node string, refs []string) ([]string, error) {
	// A listing that fails lists nothing: every image is imported.
	out, err := d.Exec(ctx, node, nil, "ctr", "--namespace=k8s.io", "images", "ls", "-q")
	if err != nil {
		out = nil
	}
	missing := absent(string(out), refs)
	if len(missing) == 0 {
		return nil, nil
	}
	if err := load(ctx, d, node, missing); err != nil {
		return nil, err
	}
	return missing, nil
}

// absent lists the refs (each once, in order) that ctr's listing lacks;
// ctr lists normalized names (docker.io/..., registry.k8s.io/...).
func absent(listing string, refs []string) []string {
	var out []string
	for _, ref := range refs {
		if !containsLine(listing, docker.Normalize(ref)) && !slices.Contains(out, ref) {
			out = append(out, ref)
		}
	}
	return out
}

// load streams `docker save refs...` into the node's `ctr images import`,
// with the snapshotter and platform the node's containerd uses.
func load(ctx context.Context, d Docker, node string, refs []string) error {
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
		return fmt.Errorf("import %s into %s: %w", strings.Join(refs, " "), node, err)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(d.SaveAll(ctx, refs, pw)) }()
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
