package stages

import (
	"fmt"

	toml "github.com/pelletier/go-toml"
)

// Loading an image into a node's containerd follows kind v0.33.0's
// LoadImageArchive (sigs.k8s.io/kind@v0.33.0 pkg/cluster/nodeutils/util.go:86):
// `ctr --namespace=k8s.io images import --digests
// --snapshotter=<the CRI's snapshotter> -`, except kind's --all-platforms.
// Without --snapshotter, ctr unpacks into its own default (overlayfs) while
// the kubelet's CRI may use another: the kindest/node entrypoint switches to
// native on zfs and to fuse-overlayfs on fuse or rootless hosts (kind v0.33.0
// images/base/files/usr/local/bin/entrypoint, configure_containerd). The
// image would then be listed yet unusable for the pod.
//
// Without --all-platforms the node imports its own platform only. On
// Docker's containerd image store (the default of fresh Docker Engine 29
// installs, docs.docker.com "containerd image store with Docker Engine"; the
// lab's DinD is docker:29-dind) `docker save` of a pulled image writes its
// whole multi-platform index but only the host's blobs, and
// `--all-platforms` then fails `ctr: content digest sha256:…: not found`
// (kind issues 3795, 4224; containerd PR 12908: "if we specify a platform,
// then ctr ignores the other platforms and the import works"). The ctr in
// kindest/node images of kind v0.33.0 is containerd v2.3.4 (kind v0.33.0
// images/base/Dockerfile:127 CONTAINERD_VERSION), whose import goes through
// the transfer service and, without --all-platforms, fetches and unpacks
// one platform: --platform if given, else platforms.DefaultSpec(), the
// platform ctr runs on (containerd v2.3.4
// cmd/ctr/commands/images/import.go:148-167), matched exactly
// (platforms.Ordered, core/transfer/image/imagestore.go:194-207). The node
// is the authority on its own platform, so no --platform is passed: the
// default is that flag with the right value. A classic-store archive holds
// one manifest and no index; its root manifest is not filtered.

// ContainerdConfigDumpCommand prints the worker containerd's effective
// configuration, where kind reads the snapshotter.
var ContainerdConfigDumpCommand = []string{"containerd", "config", "dump"}

// ContainerdImportCommand loads an image archive from stdin into a kind
// node's containerd: the node's own platform, unpacked for snapshotter.
func ContainerdImportCommand(snapshotter string) []string {
	return []string{"ctr", "--namespace=k8s.io", "images", "import", "--digests", "--snapshotter=" + snapshotter, "-"}
}

// ContainerdSnapshotter reads the CRI plugin's snapshotter from `containerd
// config dump` output, at the key kind v0.33.0 reads for each config
// version (parseSnapshotter): version 2 (containerd 1.3 to 2.x)
// plugins."io.containerd.grpc.v1.cri".containerd.snapshotter; versions 3
// and 4 (containerd 2.0, 2.1) plugins."io.containerd.cri.v1.images".snapshotter.
func ContainerdSnapshotter(dump []byte) (string, error) {
	tree, err := toml.LoadBytes(dump)
	if err != nil {
		return "", fmt.Errorf("containerd config dump: %w", err)
	}
	version, ok := tree.Get("version").(int64)
	if !ok {
		return "", fmt.Errorf("containerd config dump: no config version")
	}
	var path []string
	switch version {
	case 2:
		path = []string{"plugins", "io.containerd.grpc.v1.cri", "containerd", "snapshotter"}
	case 3, 4:
		path = []string{"plugins", "io.containerd.cri.v1.images", "snapshotter"}
	default:
		return "", fmt.Errorf("containerd config dump: config version %d, want 2, 3 or 4 (the versions kind v0.33.0 reads)", version)
	}
	s, ok := tree.GetPath(path).(string)
	if !ok || s == "" {
		return "", fmt.Errorf("containerd config dump (version %d): no snapshotter at %q", version, path)
	}
	return s, nil
}
