// Package hostdaemon starts and stops the rehearsal's private Docker daemon:
// a dockerd and a containerd of their own (socket, data root, exec root, pid
// files and logs under one state directory) running inside a network
// namespace this package creates, whose default OCI runtime is the
// capability wrapper (ci/rehearsal/capfilter/runc-capfilter). The lab then
// runs on it exactly as on a user's Docker, with DOCKER_HOST pointing at its
// socket.
//
// Why each piece is needed is in ci/rehearsal's Adaptations list. The
// namespace is entered with nsenter --net, not `ip netns exec`: the latter
// also remounts /sys, which hides the cgroup mounts (dockerd then stops with
// "Devices cgroup isn't mounted"). The namespace has only its loopback and
// what the daemon makes (bridges, veths), and no route out: nothing the
// daemon or its containers send can leave it.
//
// Stop removes everything Start made: processes, mounts, the namespace and
// (unless kept) the data root; it checks /proc/mounts and /proc afterwards
// and fails naming whatever is left.
package hostdaemon
