// Package nodeimage builds kindest/node images the way kind v0.33.0's base
// image and `kind build node-image` make them (images/base/Dockerfile,
// pkg/build/nodeimage/buildcontext.go), from a Debian bookworm root file
// system, the Kubernetes release binaries built from source and images
// built from source, preloaded into the node's containerd.
package nodeimage

import (
	"path/filepath"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/rootfs"
)

// RootFS is the node's Debian root file system: the packages kind's base
// image installs (images/base/Dockerfile:75-81: systemd, conntrack,
// iptables, nftables, iproute2, ethtool, util-linux, mount, kmod,
// libseccomp2, pigz, fuse-overlayfs, nfs-common, open-iscsi, e2fsprogs,
// bash, ca-certificates, curl, jq, procps), plus what kind builds from
// source there and Debian ships instead (:125-190): containerd, runc and
// the CNI plugins.
var RootFS = rootfs.Spec{
	Name:    "node",
	Suite:   "bookworm",
	Variant: "minbase",
	Include: []string{
		"systemd", "conntrack", "iptables", "nftables", "iproute2", "ethtool", "util-linux", "mount", "kmod",
		"libseccomp2", "pigz", "fuse-overlayfs", "nfs-common", "open-iscsi", "e2fsprogs",
		"bash", "ca-certificates", "curl", "jq", "procps",
		"containerd", "runc", "containernetworking-plugins",
	},
}

// Inputs are the files a node image of one Kubernetes version is made of.
type Inputs struct {
	// Version is the Kubernetes version ("v1.37.0"), written to /kind/version.
	Version string
	// BinDir holds kubelet, kubeadm and kubectl of Version.
	BinDir string
	// Crictl is the crictl binary.
	Crictl string
	Kind   KindFiles
	// Containerd are the containerd settings.
	Containerd ContainerdOptions
	// ContainerdTOML, when set, is the node's config.toml instead of
	// ContainerdConfig(Containerd): the rehearsal's adapted form of it.
	ContainerdTOML string
	// Extra files are added last (the hook for host adaptations, such as a
	// runc wrapper named in Containerd.RuncBinary).
	Extra []imagespec.File
}

// BaseSpec is the node image before its images are preloaded: kind's base
// image (images/base/Dockerfile) plus what `kind build node-image` adds
// (pkg/build/nodeimage/buildcontext.go:100-133: kubeadm, kubelet and
// kubectl in /usr/bin, /kind/version, and the default CNI and storage
// manifests at const.go:23-24).
func BaseSpec(ref, base string, in Inputs) imagespec.Spec {
	return imagespec.Spec{
		Ref:   ref,
		Base:  base,
		Files: baseFiles(in),
		Run: []string{
			// images/base/Dockerfile:73, :82-90: only the units kind enables
			// start; journald does not read the kernel log; systemd is init.
			"chmod 755 /kind /kind/bin" +
				" && find /lib/systemd/system/sysinit.target.wants/ -name systemd-tmpfiles-setup.service -delete" +
				" && rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/*" +
				" /lib/systemd/system/local-fs.target.wants/* /lib/systemd/system/sockets.target.wants/*udev*" +
				" /lib/systemd/system/sockets.target.wants/*initctl* /lib/systemd/system/basic.target.wants/*" +
				" && echo ReadKMsg=no >> /etc/systemd/journald.conf" +
				" && ln -sf /usr/lib/systemd/systemd /sbin/init",
			// :93-97
			"systemctl enable kubelet.service containerd.service undo-mount-hacks.service && systemctl mask systemd-binfmt.service",
			// :99-100; containerd looks for CNI plugins in /opt/cni/bin
			// (kind copies its own there, :226-230), Debian installs them
			// in /usr/lib/cni.
			"mkdir -p /etc/kubernetes/manifests /opt/cni/bin && cp -a /usr/lib/cni/. /opt/cni/bin/",
			// :212-215: the base OCI spec, with kind's product-files hook
			// and without rlimits.
			`ctr oci spec | jq '.hooks.createContainer[.hooks.createContainer| length]` +
				` |= . + {"path": "/kind/bin/mount-product-files.sh"}' | jq 'del(.process.rlimits)'` +
				` > /etc/containerd/cri-base.json && containerd --version && runc --version`,
		},
		Env:        []string{"container=docker"}, // :242
		StopSignal: "SIGRTMIN+3",                 // :245
		Entrypoint: entrypoint,
		Source:     "kind " + KindModuleVersion + " images/base + pkg/build/nodeimage, Kubernetes " + in.Version,
	}
}

// baseFiles are the files of the node image before its images are
// preloaded, in the order they are added: kind's entrypoint and scripts,
// the containerd, systemd, kubelet, crictl and sysctl settings, the
// Kubernetes binaries, /kind's version and manifests, then in.Extra.
func baseFiles(in Inputs) []imagespec.File {
	f := func(dest string, mode uint32, data string) imagespec.File {
		return imagespec.File{Dest: dest, Mode: fileMode(mode), Data: []byte(data)}
	}
	host := func(dest string, mode uint32, src string) imagespec.File {
		return imagespec.File{Dest: dest, Mode: fileMode(mode), Src: src}
	}
	files := []imagespec.File{
		host("/usr/local/bin/entrypoint", 0o755, in.Kind.Entrypoint),
	}
	for _, name := range sortedKeys(in.Kind.Scripts) {
		files = append(files, host("/kind/bin/"+name, 0o755, in.Kind.Scripts[name]))
	}
	containerdTOML := in.ContainerdTOML
	if containerdTOML == "" {
		containerdTOML = ContainerdConfig(in.Containerd)
	}
	files = append(files,
		f("/etc/containerd/config.toml", 0o644, containerdTOML),
		f("/etc/systemd/system/containerd.service", 0o644, containerdService),
		f("/etc/systemd/system/kubelet.service", 0o644, kubeletService),
		f("/etc/systemd/system/kubelet.slice", 0o644, kubeletSlice),
		f("/etc/systemd/system/undo-mount-hacks.service", 0o644, undoMountHacksService),
		f("/etc/systemd/system/kubelet.service.d/10-kubeadm.conf", 0o644, kubeadmDropIn),
		f("/etc/systemd/system/kubelet.service.d/11-kind.conf", 0o644, kindDropIn),
		f("/etc/default/kubelet", 0o644, kubeletDefaults),
		f("/etc/crictl.yaml", 0o644, crictlConfig),
		f("/etc/sysctl.d/10-network-magic.conf", 0o644, networkMagicSysctl),
		f("/etc/sysctl.d/10-network-security.conf", 0o644, networkSecuritySysctl),
		host("/usr/local/bin/crictl", 0o755, in.Crictl),
	)
	for _, b := range []string{"kubelet", "kubeadm", "kubectl"} {
		files = append(files, host("/usr/bin/"+b, 0o755, filepath.Join(in.BinDir, b)))
	}
	files = append(files,
		f("/kind/version", 0o644, in.Version),
		f("/kind/manifests/default-cni.yaml", 0o644, in.Kind.CNIManifest),
		f("/kind/manifests/default-storage.yaml", 0o644, in.Kind.StorageManifest),
	)
	files = append(files, in.Extra...)
	return files
}

// entrypoint is the node's entrypoint (images/base/Dockerfile:247; kind's
// build commits it again, buildcontext.go:139).
var entrypoint = []string{"/usr/local/bin/entrypoint", "/sbin/init"}
