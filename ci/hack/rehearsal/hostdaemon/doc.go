// Package hostdaemon starts and stops the rehearsal's private Docker daemon:
// a dockerd and a containerd of their own (socket, data root, exec root, pid
// files and logs under one state directory) running inside a network
// namespace this package creates, whose default OCI runtime is the
// capability wrapper (ci/hack/rehearsal/capfilter/runc-capfilter). The lab then
// runs on it exactly as on a user's Docker, with DOCKER_HOST pointing at its
// socket.
//
// Why each piece is needed is in ci/hack/rehearsal's Adaptations list. The
// namespace is entered with nsenter --net, not `ip netns exec`: the latter
// also remounts /sys, which hides the cgroup mounts (dockerd then stops with
// "Devices cgroup isn't mounted"). The namespace has only its loopback and
// what the daemon makes (bridges, veths), and no route out: nothing the
// daemon or its containers send can leave it.
//
// Root acts only on what it made. Start makes the state directory itself
// (root's, 0700, no symbolic link or other user's directory on its path)
// with a marker file, and records each change to the host in it before
// making it (Record: the namespace, the daemons' pids and start times, the
// cgroup parent; `rehearse run` adds the kernel limits and /lib/modules).
// Stop refuses a directory without the marker, undoes what the record
// lists — also what a labctl killed mid-way left — finding processes by
// recorded pid and start time, by namespace or by cgroup, never by name;
// it removes only the layout's own paths and checks /proc/mounts, the
// namespace and the cgroups afterwards, failing with whatever is left.
package hostdaemon
