package nodeimage

import (
	"fmt"
	"strings"
)

// The node's own configuration, written here to do what kind v0.33.0's
// base image files do (sigs.k8s.io/kind@v0.33.0 images/base/files/…, cited
// per file), for Debian bookworm's packages: containerd and runc live in
// /usr/bin and /usr/sbin (kind builds its own into /usr/local).

// ContainerdOptions are the node's containerd settings that differ by host.
type ContainerdOptions struct {
	// SandboxImage is the CRI sandbox (pause) image.
	SandboxImage string
	// RuncBinary, when set, replaces runc for every pod (containerd's
	// runc options BinaryName): the hook for a wrapper that filters
	// capabilities the host cannot grant (issue 33, fact 3).
	RuncBinary string
}

// ContainerdConfig is /etc/containerd/config.toml: kind's settings
// (images/base/files/etc/containerd/config.toml:1-42 — version 2 format,
// which Debian's containerd 1.6 reads too: the fuse-overlayfs proxy
// snapshotter the entrypoint may switch to, overlayfs by default with
// discarded layers, the runc v2 shim with the systemd cgroup driver and
// the base spec /etc/containerd/cri-base.json, the "test-handler" runtime
// class, the fixed sandbox image, a missing hugepages controller tolerated,
// restrict_oom_score_adj false, which the entrypoint sets to true inside a
// user namespace).
func ContainerdConfig(o ContainerdOptions) string {
	var b strings.Builder
	b.WriteString(`version = 2

[proxy_plugins]
[proxy_plugins."fuse-overlayfs"]
  type = "snapshot"
  address = "/run/containerd-fuse-overlayfs.sock"

[plugins."io.containerd.grpc.v1.cri".containerd]
  discard_unpacked_layers = true
  snapshotter = "overlayfs"
  default_runtime_name = "runc"
`)
	for _, rt := range []string{"runc", "test-handler"} {
		fmt.Fprintf(&b, `[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.%s]
  runtime_type = "io.containerd.runc.v2"
  base_runtime_spec = "/etc/containerd/cri-base.json"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.%s.options]
    SystemdCgroup = true
`, rt, rt)
		if o.RuncBinary != "" {
			fmt.Fprintf(&b, "    BinaryName = %q\n", o.RuncBinary)
		}
	}
	fmt.Fprintf(&b, `
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %q
  tolerate_missing_hugepages_controller = true
  restrict_oom_score_adj = false
`, o.SandboxImage)
	return b.String()
}

// containerdService runs Debian's containerd the way kind's unit runs its
// own (images/base/files/etc/systemd/system/containerd.service:1-27).
const containerdService = `[Unit]
Description=containerd container runtime
After=network.target local-fs.target
StartLimitIntervalSec=0

[Service]
ExecStartPre=-/sbin/modprobe overlay
ExecStart=/usr/bin/containerd
Type=notify
Delegate=yes
KillMode=process
Restart=always
RestartSec=1
LimitNPROC=infinity
LimitCORE=infinity
LimitNOFILE=infinity
TasksMax=infinity
OOMScoreAdjust=-999

[Install]
WantedBy=multi-user.target
`

// kubeletService is kind's kubelet unit (images/base/files/etc/systemd/
// system/kubelet.service:1-23): it waits for kubeadm's config, restarts
// every second, and runs in kubelet.slice.
const kubeletService = `[Unit]
Description=kubelet: The Kubernetes Node Agent
ConditionPathExists=/var/lib/kubelet/config.yaml

[Service]
ExecStart=/usr/bin/kubelet
Restart=always
StartLimitInterval=0
RestartSec=1s
CPUAccounting=true
MemoryAccounting=true
Slice=kubelet.slice
KillMode=process

[Install]
WantedBy=multi-user.target
`

// kubeadmDropIn is the kubeadm drop-in (kind's kubelet.service.d/
// 10-kubeadm.conf:1-12): kubeconfigs, the config file, kubeadm's flags
// file and /etc/default/kubelet.
const kubeadmDropIn = `[Service]
Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"
Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"
EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env
EnvironmentFile=-/etc/default/kubelet
ExecStart=
ExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS
`

// kindDropIn creates the kubelet's cgroup before it starts (kind's
// kubelet.service.d/11-kind.conf:1-8; the cgroup v2 script is kind's).
const kindDropIn = `[Service]
ExecStartPre=/bin/sh -euc "if [ -f /sys/fs/cgroup/cgroup.controllers ]; then /kind/bin/create-kubelet-cgroup-v2.sh; fi"
ExecStartPre=/bin/sh -euc "if [ ! -f /sys/fs/cgroup/cgroup.controllers ] && [ ! -d /sys/fs/cgroup/systemd/kubelet ]; then mkdir -p /sys/fs/cgroup/systemd/kubelet; fi"
`

// kubeletDefaults points the kubelet at containerd's cgroup (kind's
// images/base/files/etc/default/kubelet:1).
const kubeletDefaults = "KUBELET_EXTRA_ARGS=--runtime-cgroups=/system.slice/containerd.service\n"

// kubeletSlice is kind's kubelet.slice (images/base/files/etc/systemd/
// system/kubelet.slice:1-7).
const kubeletSlice = `[Unit]
Description=slice used to run Kubernetes / Kubelet
Before=slices.target

[Slice]
MemoryAccounting=true
CPUAccounting=true
`

// undoMountHacksService runs kind's undo-mount-hacks.sh before containerd
// and the kubelet (images/base/files/etc/systemd/system/
// undo-mount-hacks.service:1-10).
const undoMountHacksService = `[Unit]
Description=Undo KIND mount hacks
After=slices.target
Before=containerd.service kubelet.service

[Service]
Type=oneshot
ExecStart=/kind/bin/undo-mount-hacks.sh

[Install]
WantedBy=multi-user.target
`

// crictlConfig points crictl at containerd (kind's etc/crictl.yaml:1).
const crictlConfig = "runtime-endpoint: unix:///run/containerd/containerd.sock\n"

// networkMagicSysctl lets pods reach Docker's embedded DNS through the
// node (route_localnet) and keeps kindnet's /32 routes answering ARP
// (kind's etc/sysctl.d/10-network-magic.conf:1-25).
const networkMagicSysctl = "net.ipv4.conf.all.route_localnet=1\nnet.ipv4.conf.all.arp_ignore=0\n"

// networkSecuritySysctl turns on source address verification (kind's
// etc/sysctl.d/10-network-security.conf:1-4).
const networkSecuritySysctl = "net.ipv4.conf.default.rp_filter=1\nnet.ipv4.conf.all.rp_filter=1\n"
