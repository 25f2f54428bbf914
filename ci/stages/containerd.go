package stages

import (
	"fmt"

	toml "github.com/pelletier/go-toml"
)

// Loading an image into a worker's containerd follows kind v0.33.0's
// LoadImageArchive (sigs.k8s.io/kind@v0.33.0 pkg/cluster/nodeutils/util.go):
// `ctr --namespace=k8s.io images import --all-platforms --digests
// --snapshotter=<the CRI's snapshotter> -`. Without --snapshotter, ctr
// unpacks into its own default (overlayfs) while the kubelet's CRI may use
// another: the kindest/node entrypoint switches to native on zfs and to
// fuse-overlayfs on fuse or rootless hosts (kind v0.33.0
// images/base/files/usr/local/bin/entrypoint, configure_containerd). The
// image would then be listed yet unusable for the pod.

// ContainerdConfigDumpCommand prints the worker containerd's effective
// configuration, where kind reads the snapshotter.
var ContainerdConfigDumpCommand = []string{"containerd", "config", "dump"}

// ContainerdImportCommand loads an image archive from stdin into a kind
// node's containerd, unpacked for snapshotter.
func ContainerdImportCommand(snapshotter string) []string {
	return []string{"ctr", "--namespace=k8s.io", "images", "import", "--all-platforms", "--digests", "--snapshotter=" + snapshotter, "-"}
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
