package labcmd

import "strconv"

// DindEntrypoint is the published image's entrypoint (docker-library/docker
// at 29.7.2, 29/dind/Dockerfile:102,107: /usr/local/bin/dockerd-entrypoint.sh).
const DindEntrypoint = "dockerd-entrypoint.sh"

// cgroupRoot is where the service sees its own cgroups.
const cgroupRoot = "/sys/fs/cgroup"

// dindScript opens the devices cgroup on cgroup v1, then hands over to the
// published entrypoint with the daemon's arguments. Why: the engine starts
// an insecure-root service with a devices cgroup that allows "c *:* rwm" and
// "b *:* rwm" but not "a" (dagger v0.21.8
// internal/buildkit/util/entitlements/security/security_linux.go:37-48), and
// runc in the nested daemon writes "a *:* rwm" for every privileged
// container — kind's nodes are privileged — which cgroup v1 refuses below a
// cgroup without it: `write /sys/fs/cgroup/devices/docker/<id>/devices.allow:
// operation not permitted` (the first real lab-test on a cgroup v1 host).
// The service's own cgroup may allow "a" when its parent does (the engine
// runs privileged), which is what the published entrypoint's cgroup v2
// nesting step (moby hack/dind:61-77 at docker-v29.7.2) needs no equivalent
// of. Where the write fails, the daemon starts anyway and says why.
const dindScript = `if [ ! -f ` + cgroupRoot + `/cgroup.controllers ] && [ -f ` + cgroupRoot + `/devices/devices.allow ]; then
	echo a > ` + cgroupRoot + `/devices/devices.allow || echo >&2 "gpu-lab: the devices cgroup (cgroup v1) stays closed: privileged containers in this daemon will fail"
fi
exec ` + DindEntrypoint + ` "$@"`

// DindArgs start the lab's Docker daemon: dindScript, then the published
// entrypoint with dockerd on the socket and on DockerPort without TLS (only
// the session's bound containers reach it).
func DindArgs() []string {
	return []string{"sh", "-c", dindScript, "sh",
		"dockerd", "--host=tcp://0.0.0.0:" + strconv.Itoa(DockerPort), "--host=unix:///var/run/docker.sock", "--tls=false"}
}
