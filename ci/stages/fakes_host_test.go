package stages

import (
	"context"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/preflight"
)

// hostProbeResult is what the fake daemon's privileged probe answers.
type hostProbeResult struct {
	probe docker.HostProbe
	err   error
}

// goodHost passes every preflight check: kind's inotify values and 100 GiB
// free.
var goodHost = docker.HostProbe{MaxUserWatches: preflight.MinInotifyWatches, MaxUserInstances: preflight.MinInotifyInstances,
	FreeBytes: 100 << 30}

func (f *fakeDocker) ProbeHost(_ context.Context, image string, usernsHost bool) (docker.HostProbe, error) {
	if usernsHost {
		image += " --userns=host"
	}
	f.record("probe " + image)
	if f.host == nil {
		return goodHost, nil
	}
	return f.host.probe, f.host.err
}

func (f *fakeDocker) ImageSizes(_ context.Context, refs ...string) ([]int64, error) {
	f.record("sizes")
	out := make([]int64, len(refs))
	for i, r := range refs {
		out[i] = f.sizes[r]
	}
	return out, nil
}

// ImageTransfer: a classic-store daemon on linux/amd64.
func (f *fakeDocker) ImageTransfer(context.Context) (docker.ImageTransfer, error) {
	return docker.ImageTransfer{Platform: fakePlatform, APIVersion: "1.41"}, nil
}

const fakePlatform = "linux/amd64"
