package moduleimages

// Differences lists, image by image, how the built images differ from the
// published ones (docker-library/docker 29/cli and 29/dind,
// docker-library/golang 1.26), each with its reason.
func Differences() map[string][]string {
	common := "Debian " + Suite + " minbase instead of Alpine 3.23 (docker) or buildpack-deps:trixie-scm (golang:1.26's default variant): " +
		"debootstrap is how this machine makes root file systems, and bookworm is the machine's own release"
	return map[string][]string{
		CLIRef: {
			common,
			"docker CLI " + DockerVersion + " built here from docker/cli@" + CLIPin.Tag +
				" with cgo off (upstream's static build links with cgo, scripts/build/.variables), no buildx or compose plug-ins, no modprobe helper",
			"docker-entrypoint.sh is our own: a leading flag runs docker; it does not guess subcommands or default DOCKER_HOST to " +
				"tcp://docker:2375 (the module sets DOCKER_HOST and runs commands without the entrypoint)",
		},
		DindRef: {
			common,
			"dockerd and docker-proxy " + DockerVersion + " built here from moby/moby@" + MobyPin.Tag + " with cgo off; containerd " +
				ContainerdVersion + " and runc " + RuncVersion + " (moby's Dockerfile pins) through the Go module proxy; docker-init is Debian's " +
				"tini-static 0.19.0 (moby builds tini v0.19.0 from source)",
			"dockerd-entrypoint.sh is our own with the published one's behaviour for the module's invocation (dockerd under docker-init and " +
				"hack/dind, iptables-legacy fallback, cgroup v2 namespace), but it makes no TLS certificates: DOCKER_TLS_CERTDIR must be empty (the " +
				"module sets it so), and there is no rootless mode",
			"no zfs tools (zfsutils-linux is in Debian's contrib) and no e2fsprogs-extra (Alpine's split; Debian's e2fsprogs holds it)",
			"the image declares no VOLUME /var/lib/docker and no EXPOSE 2375 2376 (the rehearsal's image builder has no such instructions): the " +
				"module mounts a cache volume there and exposes 2375 itself; run by hand, mount a volume at /var/lib/docker",
		},
		GoRef: {
			common,
			"Go is this machine's toolchain (/usr/local/go, the version GOLANG_VERSION says) rather than go.dev's archive of the newest 1.26.x; " +
				"the env (GOTOOLCHAIN=local, GOPATH=/go, PATH) and WORKDIR /go are the published image's",
			"of buildpack-deps:bookworm-scm only ca-certificates, curl, netbase, wget, git, openssh-client and procps (no gnupg, sq, " +
				"mercurial, subversion)",
		},
	}
}
