package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// How an image leaves the daemon for a kind node's containerd depends on the
// daemon's image store.
//
// The classic (graph driver) store holds one platform of an image, and
// `docker save` writes that platform only. The containerd image store (the
// default of fresh Docker Engine 29 installs) keeps a pulled image's whole
// multi-platform index although it fetched only the host's blobs, and `docker
// save` without --platform writes that index with only the local blobs, so an
// importer that walks every platform fails "content digest … not found"
// (kind issue 3795: Docker Engine 28.3.3 on Linux with the containerd store;
// kind PR 4247: Docker 29.1.3; kind issue 4224; containerd PR 12908; moby
// api/docs/CHANGELOG.md v1.48: without `platform` GET /images/get saves
// "the full multi-platform image"). Both ends are handled:
//
//   - the node imports its own platform only (ci/internal/nodeimage ContainerdImportCommand:
//     --platform=<ImageTransfer.Platform> instead of kind's --all-platforms),
//     which works on either archive;
//   - on the containerd store the daemon saves the node's platform only
//     (`docker save --platform`), so a bundle written by `labctl images save`
//     holds no index entries without blobs and loads into any daemon.
//
// `docker save --platform` exists from docker CLI v28.0.0 on and needs API
// 1.48 (docker/cli v28.0.0 cli/command/image/save.go:43-44, the flag's
// "version" annotation; moby api/docs/CHANGELOG.md "v1.48 API changes":
// GET /images/get takes `platform`). The CLI refuses the flag on an older
// API ("--platform" requires API version 1.48, but the Docker daemon API
// version is 1.41 — this machine's Docker 20.10, TestDaemonImageTransfer).
//
// A bundle records each image's ID when it is saved and checks it when the
// archive is loaded (ci/images). On the containerd store a pulled image's
// ID is its index's digest, but an archive saved for one platform holds
// that platform's manifest as the image (moby docker-v29.7.2
// daemon/containerd/image_exporter.go:73-82), which loads with the
// manifest's digest as its ID. `docker image inspect --platform` answers
// that digest (daemon/containerd/image_inspect.go:79-94: with a platform,
// the target is the platform's manifest and ID its digest); the flag needs
// API 1.49 (docker/cli v28.2.2 cli/command/image/inspect.go:49-52). So the
// platform is used for both or neither: from API 1.49 on.
// On the classic store Docker 28 would also take it, but then fails unless
// the one platform it holds matches (moby v28.5.2
// image/tarexport/save.go:168-170), and the archive holds one platform
// anyway: the flag is passed on the containerd store only.

// containerdSnapshotterDriverType is the "driver-type" the containerd image
// store reports in `docker info`'s DriverStatus: moby docker-v29.7.2
// daemon/containerd/service.go:160-165 (LayerStoreStatus returns
// {"driver-type", plugins.SnapshotPlugin}), daemon/info.go:178 (DriverStatus
// = LayerStoreStatus()); plugins.SnapshotPlugin is
// "io.containerd.snapshotter.v1" (containerd v2 plugins/types.go:39, as
// vendored there). `docker info` prints it as "driver-type:
// io.containerd.snapshotter.v1" under "Storage Driver".
const containerdSnapshotterDriverType = "io.containerd.snapshotter.v1"

// containerdImageStore reports whether the daemon uses the containerd image
// store (DriverStatus holds ["driver-type", "io.containerd.snapshotter.v1"]).
// A graph driver's DriverStatus holds pairs such as ["Backing Filesystem",
// "extfs"], or nothing (fuse-overlayfs: null in this machine's recording).
func (i DaemonInfo) containerdImageStore() bool {
	for _, kv := range i.DriverStatus {
		if len(kv) == 2 && kv[0] == "driver-type" && kv[1] == containerdSnapshotterDriverType {
			return true
		}
	}
	return false
}

// versionInfo is the part of `docker version --format '{{json .}}'` that
// decides how images are saved.
type versionInfo struct {
	Client struct {
		Version string `json:"Version"`
		// APIVersion is the API version the CLI speaks to this daemon:
		// the lower of its own and the daemon's ("1.41 (downgraded from
		// 1.50)" in `docker version`'s text).
		APIVersion string `json:"ApiVersion"`
	} `json:"Client"`
	Server struct {
		Version    string `json:"Version"`
		APIVersion string `json:"ApiVersion"`
		// Os and Arch are the daemon's GOOS and GOARCH ("linux",
		// "amd64"): the platform of every container it runs, kind's nodes
		// included.
		Os   string `json:"Os"`
		Arch string `json:"Arch"`
	} `json:"Server"`
}

// parseVersion decodes `docker version --format '{{json .}}'` output.
func parseVersion(data []byte) (versionInfo, error) {
	var v versionInfo
	if err := json.Unmarshal(data, &v); err != nil {
		return versionInfo{}, fmt.Errorf("decode docker version: %w", err)
	}
	if v.Server.Os == "" || v.Server.Arch == "" || v.Client.APIVersion == "" {
		return versionInfo{}, fmt.Errorf("docker version: no server platform or API version in %q (is a daemon answering?)",
			strings.TrimSpace(string(data)))
	}
	return v, nil
}

// version reads the client's and the daemon's versions.
func (c CLI) version(ctx context.Context) (versionInfo, error) {
	out, err := c.Run(ctx, "version", "--format", "{{json .}}")
	if err != nil {
		return versionInfo{}, fmt.Errorf("docker version: %w", err)
	}
	return parseVersion(out)
}

// savePlatformAPI is the API version from which `docker save --platform`
// and `docker image inspect --platform` both work (see above).
const savePlatformAPI = "1.49"

// ImageTransfer is how images leave this daemon for a node's containerd.
type ImageTransfer struct {
	// Platform is the daemon's platform, "linux/amd64": the nodes'.
	Platform string
	// ContainerdStore: the daemon uses the containerd image store.
	ContainerdStore bool
	// SavePlatform: `docker save --platform Platform`, and image IDs read
	// for Platform (the containerd store, with a CLI and daemon at API >=
	// 1.49).
	SavePlatform bool
	// APIVersion is the API the CLI speaks to the daemon.
	APIVersion string
}

// imageTransferFor decides from the daemon's info and version.
func imageTransferFor(info DaemonInfo, v versionInfo) (ImageTransfer, error) {
	atLeast, err := apiAtLeast(v.Client.APIVersion, savePlatformAPI)
	if err != nil {
		return ImageTransfer{}, err
	}
	t := ImageTransfer{
		Platform:        v.Server.Os + "/" + v.Server.Arch,
		ContainerdStore: info.containerdImageStore(),
		APIVersion:      v.Client.APIVersion,
	}
	t.SavePlatform = t.ContainerdStore && atLeast
	return t, nil
}

// saveArgs is the docker argv that saves refs into one archive.
func (t ImageTransfer) saveArgs(refs ...string) []string {
	if t.SavePlatform {
		return append([]string{"save", "--platform", t.Platform}, refs...)
	}
	return append([]string{"save"}, refs...)
}

// imageIDArgs is the docker argv that prints the ID of each of refs, one a
// line: the ID an archive saveArgs writes carries once loaded.
func (t ImageTransfer) imageIDArgs(refs ...string) []string {
	args := []string{"image", "inspect", "--format", "{{.Id}}"}
	if t.SavePlatform {
		args = append(args, "--platform", t.Platform)
	}
	return append(args, refs...)
}

// Describe says what the transfer does, for logs and plans.
func (t ImageTransfer) Describe() string {
	switch {
	case t.SavePlatform:
		return fmt.Sprintf("containerd image store: docker save --platform %s", t.Platform)
	case t.ContainerdStore:
		return fmt.Sprintf("containerd image store at API %s (< %s, no docker save --platform): "+
			"archives carry the whole index, nodes import %s only", t.APIVersion, savePlatformAPI, t.Platform)
	default:
		return fmt.Sprintf("classic image store: docker save writes the one platform held (%s)", t.Platform)
	}
}

// apiAtLeast compares "major.minor" API versions.
func apiAtLeast(v, min string) (bool, error) {
	a, err := apiVersion(v)
	if err != nil {
		return false, err
	}
	b, err := apiVersion(min)
	if err != nil {
		return false, err
	}
	return a[0] > b[0] || (a[0] == b[0] && a[1] >= b[1]), nil
}

func apiVersion(s string) ([2]int, error) {
	maj, min, ok := strings.Cut(strings.TrimSpace(s), ".")
	x, err1 := strconv.Atoi(maj)
	y, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil {
		return [2]int{}, fmt.Errorf("docker API version %q: want major.minor", s)
	}
	return [2]int{x, y}, nil
}

// transfers remembers each daemon's ImageTransfer for the life of the
// process, keyed by the CLI (binary and environment, hence DOCKER_HOST):
// a daemon changes its image store only when it restarts, and a bundle
// saves ~17 images into every node, each save otherwise costing two more
// docker commands.
var transfers sync.Map

// ImageTransfer reads (once per process and daemon) how images leave the
// daemon.
func (c CLI) ImageTransfer(ctx context.Context) (ImageTransfer, error) {
	key := c.bin() + "\x00" + strings.Join(c.Env, "\x00")
	if t, ok := transfers.Load(key); ok {
		return t.(ImageTransfer), nil
	}
	info, err := c.Info(ctx)
	if err != nil {
		return ImageTransfer{}, err
	}
	v, err := c.version(ctx)
	if err != nil {
		return ImageTransfer{}, err
	}
	t, err := imageTransferFor(info, v)
	if err != nil {
		return ImageTransfer{}, err
	}
	transfers.Store(key, t)
	return t, nil
}
