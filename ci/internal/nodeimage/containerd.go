package nodeimage

import (
	"fmt"
	"strings"

	toml "github.com/pelletier/go-toml"
	"k8s.io/apimachinery/pkg/util/version"
)

// Loading an image into a node's containerd follows kind v0.33.0's
// LoadImageArchive (sigs.k8s.io/kind@v0.33.0 pkg/cluster/nodeutils/util.go:86):
// `ctr --namespace=k8s.io images import --all-platforms --digests
// --snapshotter=<the CRI's snapshotter> -`, with two changes that the ctr
// of kind v0.33.0's node images — containerd v2.3.4 (kind v0.33.0
// images/base/Dockerfile:127 CONTAINERD_VERSION) — needs; both were shown
// with that ctr and containerd, built from source, in
// TestContainerdImportWithRealCtr.
//
// --snapshotter: without it ctr unpacks into its own default (overlayfs)
// while the kubelet's CRI may use another: the kindest/node entrypoint
// switches to native on zfs and to fuse-overlayfs on fuse or rootless hosts
// (kind v0.33.0 images/base/files/usr/local/bin/entrypoint,
// configure_containerd). The image would then be listed yet unusable.
//
// --local: ctr v2 imports through containerd's transfer service by
// default, which unpacks only for the snapshotters of its unpack_config;
// unset (kind's config.toml sets none), that is overlayfs alone (containerd
// v2.3.4 plugins/transfer/plugin_defaults_linux.go:33-48), so with
// --snapshotter=native or fuse-overlayfs the import fails "unable to
// initialize unpacker: no unpack platforms defined" (containerd issue 11606,
// open; workaround --local). --local imports in ctr itself and unpacks with
// the snapshotter named (cmd/ctr/commands/images/import.go:202-290).
//
// --platform=<the node's platform> instead of --all-platforms: on Docker's
// containerd image store (the default of fresh Docker Engine 29 installs,
// docs.docker.com "containerd image store with Docker Engine"; the lab's
// DinD is docker:29-dind) `docker save` of a pulled image writes its whole
// multi-platform index but only the host's blobs, and --all-platforms fails
// `ctr: content digest sha256:…: not found` (kind issues 3795, 4224;
// containerd PR 12908: "if we specify a platform, then ctr ignores the other
// platforms and the import works"). The platform must be named: without it
// the local import matches loosely (the client's platforms.Default(),
// client/client.go:130 and client/import.go:185-190, which takes linux/386
// for linux/amd64: containerd PR 6906), and an index that
// lists a 386 image without its blobs fails again; --platform matches
// strictly (platforms.OnlyStrict, import.go:231-237). The node's platform is
// its daemon's (docker.ImageTransfer). A classic-store archive holds one
// manifest and no index; its root manifest is not filtered.

// ContainerdConfigDumpCommand prints the worker containerd's effective
// configuration, where kind reads the snapshotter.
var ContainerdConfigDumpCommand = []string{"containerd", "config", "dump"}

// ContainerdImportCommand loads an image archive from stdin into a kind
// node's containerd: platform only ("linux/amd64", the node's), unpacked for
// snapshotter; local when the node's ctr has --local (CtrImportsLocally).
func ContainerdImportCommand(snapshotter, platform string, local bool) []string {
	cmd := []string{"ctr", "--namespace=k8s.io", "images", "import"}
	if local {
		cmd = append(cmd, "--local")
	}
	return append(cmd, "--platform="+platform, "--digests", "--snapshotter="+snapshotter, "-")
}

// ctrVersionCommand prints the node's ctr version: "ctr <package>
// <version>" (containerd v2.3.4 cmd/ctr/app/main.go:55-57 VersionPrinter).
var ctrVersionCommand = []string{"ctr", "--version"}

// ctrImportsLocally reads `ctr --version` output: whether `ctr images
// import` has --local. The flag came with containerd v1.7.0 (its
// cmd/ctr/commands/images/import.go:90; v1.6.20's has none), and before it
// ctr always imported in itself, as --local does now: a 1.6 node (Debian
// bookworm's containerd 1.6.20, kind nodes before v0.20) refuses the flag,
// "ctr: flag provided but not defined: -local" (testdata). An output this
// cannot read keeps --local: every ctr of the pinned node images has it.
func ctrImportsLocally(out []byte) bool {
	f := strings.Fields(string(out))
	if len(f) < 3 || f[0] != "ctr" {
		return true
	}
	v := strings.TrimPrefix(f[len(f)-1], "v")
	if i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' }); i >= 0 {
		v = v[:i]
	}
	parsed, err := version.ParseGeneric(v)
	if err != nil {
		return true
	}
	return parsed.AtLeast(version.MajorMinor(1, 7))
}

// containerdSnapshotter reads the CRI plugin's snapshotter from `containerd
// config dump` output, at the key kind v0.33.0 reads for each config
// version (parseSnapshotter): version 2 (containerd 1.3 to 2.x)
// plugins."io.containerd.grpc.v1.cri".containerd.snapshotter; versions 3
// and 4 (containerd 2.0, 2.1) plugins."io.containerd.cri.v1.images".snapshotter.
func containerdSnapshotter(dump []byte) (string, error) {
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
