package labcmd

import "strconv"

// DindEntrypoint is the published image's entrypoint (docker-library/docker
// at 29.7.2, 29/dind/Dockerfile:102,107: /usr/local/bin/dockerd-entrypoint.sh).
const DindEntrypoint = "dockerd-entrypoint.sh"

// cgroupRoot is where the service sees its own cgroups.
const cgroupRoot = "/sys/fs/cgroup"

// procSelf is where the service reads its own cgroups and mounts.
const procSelf = "/proc/self"

// dindScript prepares the service's cgroups on a cgroup v1 host, then hands
// over to the published entrypoint with the daemon's arguments (the
// entrypoint's own cgroup v2 nesting step, moby hack/dind:61-77 at
// docker-v29.7.2, has no v1 counterpart). Both steps were found by the
// first real lab-tests on a cgroup v1 host:
//
//   - Devices: the engine starts an insecure-root service with a devices
//     cgroup that allows "c *:* rwm" and "b *:* rwm" but not "a" (dagger
//     v0.21.8 internal/buildkit/util/entitlements/security/security_linux.go
//     :37-48); runc in the nested daemon writes "a *:* rwm" for every
//     privileged container (kind's nodes), which v1 refuses below a cgroup
//     without it (`devices.allow: operation not permitted`). The service's
//     own cgroup may allow "a" when its parent does (the engine is
//     privileged).
//   - The unified hierarchy of a hybrid host (v1 controllers, cgroup2 at
//     /sys/fs/cgroup/unified for systemd): the engine mounts no unified
//     hierarchy in the service and leaves it in the engine's own unified
//     cgroup, so the nested runc sees no hybrid host and gives the nodes
//     no unified cgroup of their own; each node's systemd mounts cgroup2
//     itself, rooted at that one shared cgroup, and the second node's
//     systemd and kubelet break (`Failed to attach 1 to compat systemd
//     cgroup /init.scope`, kubelet: `missing paths
//     /sys/fs/cgroup/systemd/kubelet.slice/kubelet-kubepods.slice`). The
//     service moves into a unified cgroup of its own and mounts cgroup2
//     there, in a cgroup namespace rooted at it, so that the nested runc
//     places every node in its own unified cgroup, as on the host.
//
// A step that fails says so and the daemon starts anyway.
const dindScript = `cg=` + cgroupRoot + `
if [ ! -f "$cg/cgroup.controllers" ]; then
	if [ -f "$cg/devices/devices.allow" ]; then
		echo a > "$cg/devices/devices.allow" || echo >&2 "gpu-lab: the devices cgroup (cgroup v1) stays closed: privileged containers in this daemon will fail"
	fi
	unified=$(sed -n 's/^0:://p' ` + procSelf + `/cgroup)
	if [ -n "$unified" ] && ! grep -q " $cg/unified cgroup2 " ` + procSelf + `/mounts; then
		own="$cg/unified$unified/gpu-lab-dind-$$"
		if unshare --cgroup true 2>/dev/null && mkdir -p "$cg/unified" && mount -t cgroup2 cgroup2 "$cg/unified" && mkdir -p "$own" && echo $$ > "$own/cgroup.procs" && umount "$cg/unified"; then
			exec unshare --cgroup sh -c 'mount -t cgroup2 cgroup2 "$0/unified" || echo >&2 "gpu-lab: no unified cgroup hierarchy for the nested daemon"; exec ` + DindEntrypoint + ` "$@"' "$cg" "$@"
		fi
		echo >&2 "gpu-lab: the unified cgroup hierarchy (hybrid cgroup v1) could not be given to the nested daemon: its second kind node may fail"
	fi
fi
exec ` + DindEntrypoint + ` "$@"`

// DindArgs start the lab's Docker daemon: dindScript, then the published
// entrypoint with dockerd on the socket and on DockerPort without TLS (only
// the session's bound containers reach it).
func DindArgs() []string {
	return []string{"sh", "-c", dindScript, "sh",
		"dockerd", "--host=tcp://0.0.0.0:" + strconv.Itoa(DockerPort), "--host=unix:///var/run/docker.sock", "--tls=false"}
}
