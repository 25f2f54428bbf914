package moduleimages

// dockerdEntrypoint is the dind image's entrypoint, written for this
// image (not copied): the behaviour of the published
// docker-library/docker 29/dind/dockerd-entrypoint.sh the module relies on.
// The module runs it with DOCKER_TLS_CERTDIR="" and the arguments
// `dockerd --host=tcp://0.0.0.0:2375 --host=unix:///var/run/docker.sock
// --tls=false` (.dagger/labcmd DindArgs, run through sh after the cgroup v1
// devices step; .dagger/run.go dind: InsecureRootCapabilities).
// Kept: no arguments or a first flag means dockerd on the socket and
// tcp 2375; stale pid files are removed; dockerd runs under docker-init;
// iptables-legacy is chosen when legacy tables are in use or nf_tables
// fails and legacy works (DOCKER_IPTABLES_LEGACY forces the choice);
// moby's hack/dind wraps it; on cgroup v2 outside the cgroup root it
// re-mounts /sys/fs/cgroup in a new cgroup namespace. Not kept: TLS
// certificate generation (a set DOCKER_TLS_CERTDIR is refused, naming
// the fix) and rootless mode.
const dockerdEntrypoint = `#!/bin/sh
set -eu
if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then
	if [ -n "${DOCKER_TLS_CERTDIR:-}" ]; then
		echo >&2 "dockerd-entrypoint.sh: this image makes no TLS certificates; run it with DOCKER_TLS_CERTDIR='' (as the gpu-lab module does)"
		exit 1
	fi
	set -- dockerd --host=unix:///var/run/docker.sock --host=tcp://0.0.0.0:2375 "$@"
fi
if [ "$1" != dockerd ]; then
	exec docker-entrypoint.sh "$@"
fi
find /run /var/run -iname 'docker*.pid' -delete || :
legacy=
if [ -n "${DOCKER_IPTABLES_LEGACY+x}" ]; then
	legacy=$DOCKER_IPTABLES_LEGACY
elif grep -qs . /proc/net/ip_tables_names /proc/net/ip6_tables_names /proc/net/arp_tables_names; then
	legacy=1
elif ! iptables -nL >/dev/null 2>&1; then
	modprobe nf_tables 2>/dev/null || :
	if ! iptables -nL >/dev/null 2>&1 && /usr/local/sbin/.iptables-legacy/iptables -nL >/dev/null 2>&1; then
		legacy=1
	fi
fi
if [ -n "$legacy" ]; then
	export PATH="/usr/local/sbin/.iptables-legacy:$PATH"
fi
iptables --version
set -- /usr/local/bin/dind docker-init -- "$@"
if [ -f /sys/fs/cgroup/cgroup.controllers ] && [ "$(sed -n 's/^0:://p' /proc/self/cgroup)" != / ]; then
	remount='opts="$(grep " /sys/fs/cgroup cgroup2 " /proc/self/mounts | tail -n1 | cut -d" " -f4)"; umount /sys/fs/cgroup; mount -t cgroup2 -o "$opts" cgroup2 /sys/fs/cgroup; exec "$@"'
	if unshare --cgroup --mount sh -ec "$remount" sh true 2>/dev/null; then
		set -- unshare --cgroup --mount sh -ec "$remount" sh "$@"
	else
		echo >&2 'dockerd-entrypoint.sh: no cgroup namespace; containers are created outside this container'"'"'s cgroup'
	fi
fi
exec "$@"
`

// dockerEntrypoint is the CLI image's entrypoint, written for this image:
// as the published docker-entrypoint.sh, a first argument that is a flag
// runs docker with the arguments; anything else runs as given. Not kept:
// guessing docker subcommands and defaulting DOCKER_HOST to
// tcp://docker:2375 (the module sets DOCKER_HOST itself and runs its
// commands without the entrypoint).
const dockerEntrypoint = `#!/bin/sh
set -e
if [ "$#" -gt 0 ] && [ "${1#-}" != "$1" ]; then
	set -- docker "$@"
fi
exec "$@"
`
