package docker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The lab runs where the daemon runs (a remote DOCKER_HOST, a Dagger DinD
// service), so what preflight must know about the host is read there: one
// short-lived privileged container from a node image, started the way
// kind's nodes are (--privileged), reads the host's inotify limits and the
// free space of the filesystem the daemon keeps containers on.
//
// The inotify limits are the host's: they are not namespaced for a
// container in the initial user namespace. The container's root filesystem
// is a snapshot in the daemon's storage (graph driver or containerd
// snapshotter), so statfs("/") inside it reports the filesystem where the
// daemon stores images and node containers write theirs.

// hostProbeScript runs in the probe container (sh, cat and GNU stat of the
// node image: kindest/node is Debian trixie, kind v0.33.0
// images/base/Dockerfile:23). stat -f: %a free blocks available to
// unprivileged users, %S the fundamental block size (coreutils stat(1)).
const hostProbeScript = "cat /proc/sys/fs/inotify/max_user_watches /proc/sys/fs/inotify/max_user_instances && stat -f -c '%a %S' /"

// HostProbe is what the probe container reads.
type HostProbe struct {
	MaxUserWatches   int64
	MaxUserInstances int64
	// FreeBytes is the space free to unprivileged users on the filesystem
	// of the daemon's container storage.
	FreeBytes uint64
}

// parseHostProbe reads HostProbeScript's output: two lines with one integer
// each, then "<available blocks> <block size>".
func parseHostProbe(out string) (HostProbe, error) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		return HostProbe{}, fmt.Errorf("host probe output %q: want 3 lines (inotify watches, inotify instances, free blocks and block size)", out)
	}
	var p HostProbe
	var err error
	if p.MaxUserWatches, err = strconv.ParseInt(strings.TrimSpace(lines[0]), 10, 64); err != nil {
		return HostProbe{}, fmt.Errorf("host probe: fs.inotify.max_user_watches: %w", err)
	}
	if p.MaxUserInstances, err = strconv.ParseInt(strings.TrimSpace(lines[1]), 10, 64); err != nil {
		return HostProbe{}, fmt.Errorf("host probe: fs.inotify.max_user_instances: %w", err)
	}
	f := strings.Fields(lines[2])
	if len(f) != 2 {
		return HostProbe{}, fmt.Errorf("host probe: free space line %q: want \"<blocks> <block size>\"", lines[2])
	}
	blocks, err1 := strconv.ParseUint(f[0], 10, 64)
	size, err2 := strconv.ParseUint(f[1], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return HostProbe{}, fmt.Errorf("host probe: free space line %q: %w", lines[2], err)
	}
	p.FreeBytes = blocks * size
	return p, nil
}

// ErrPrivilegedRefused means the daemon cannot start a privileged
// container. kind's nodes and the lab's workers are privileged containers
// (kind v0.33.0 pkg/cluster/internal/providers/docker/provision.go,
// commonArgs: --privileged), so no stage could start.
var ErrPrivilegedRefused = errors.New("the Docker daemon cannot start privileged containers")

// privilegedRefusals are what runc says when the daemon's own process lacks
// the capabilities a privileged container asks for: "unable to apply caps:
// operation not permitted", recorded from this machine's Docker 20.10.24
// (runc 1.1.5) in TestDaemonHostProbeNamesPrivilegedRefusal.
var privilegedRefusals = []string{"unable to apply caps"}

// ProbeHost runs HostProbeScript in a privileged container from image,
// which must be on the daemon already (--pull never: the probe never
// pulls), with --userns=host when usernsHost (the daemon remaps user
// namespaces: kind's nodes get the same, KindNodeHost.UsernsHost). A daemon
// that refuses privileged containers gives an error wrapping
// ErrPrivilegedRefused that says what to change.
func (c CLI) ProbeHost(ctx context.Context, image string, usernsHost bool) (HostProbe, error) {
	args := []string{"run", "--rm", "--pull", "never", "--privileged"}
	if usernsHost {
		args = append(args, "--userns=host")
	}
	args = append(args, "--entrypoint", "sh", image, "-c", hostProbeScript)
	out, err := c.Run(ctx, args...)
	if err != nil {
		var de *Error
		if errors.As(err, &de) {
			for _, s := range privilegedRefusals {
				if strings.Contains(de.Stderr, s) {
					return HostProbe{}, fmt.Errorf("%w (a privileged container from %s: %s): kind's nodes and "+
						"the lab's workers are privileged containers. Run the lab on a Docker daemon that runs "+
						"as root with every capability: on a VM or machine of its own, or, for Docker-in-Docker, "+
						"in a container started with --privileged (Dagger: InsecureRootCapabilities); "+
						"a daemon inside an unprivileged container or sandbox cannot", ErrPrivilegedRefused, image, s)
				}
			}
		}
		return HostProbe{}, fmt.Errorf("host probe (a privileged container from %s): %w", image, err)
	}
	return parseHostProbe(string(out))
}

// ImageSizes returns the daemon's size of each image (docker image inspect
// .Size, bytes), in the order asked, from one command.
func (c CLI) ImageSizes(ctx context.Context, refs ...string) ([]int64, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	out, err := c.Run(ctx, append([]string{"image", "inspect", "--format", "{{.Size}}"}, refs...)...)
	if err != nil {
		return nil, fmt.Errorf("inspect image sizes of %s: %w", strings.Join(refs, ", "), err)
	}
	f := strings.Fields(string(out))
	if len(f) != len(refs) {
		return nil, fmt.Errorf("inspect image sizes of %s: %d sizes for %d images: %q", strings.Join(refs, ", "), len(f), len(refs), out)
	}
	sizes := make([]int64, len(f))
	for i, s := range f {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("size of image %s: %w", refs[i], err)
		}
		sizes[i] = n
	}
	return sizes, nil
}
