package moduleimages

import (
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/imagespec"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/rootfs"
)

// The images the Dagger module pulls (.dagger/labcmd/layout.go GoImage,
// DindImage, RunnerImage), by the names the engine resolves them to.
const (
	CLIRef  = "docker.io/library/docker:29-cli"
	DindRef = "docker.io/library/docker:29-dind"
	GoRef   = "docker.io/library/golang:1.26"
)

// Suite is the Debian release of every image: the machine's own, whose
// Go toolchain goes into golang:1.26 unchanged.
const Suite = "bookworm"

// The published images' userland, from docker-library/docker (29/cli,
// 29/dind Dockerfiles) and docker-library/golang (1.26/bookworm, on
// buildpack-deps:bookworm-scm), as Debian names the same tools.
var (
	cliPackages = []string{"ca-certificates", "openssh-client", "git"}
	// dind adds moby's runtime dependencies as the dind Dockerfile lists
	// them (btrfs-progs e2fsprogs git iptables openssl pigz uidmap
	// xfsprogs xz), kmod for the entrypoint's modprobe, procps, and tini,
	// whose static binary is docker-init (moby's Dockerfile builds tini
	// v0.19.0 for it; bookworm's tini is 0.19.0).
	dindPackages = append(append([]string{}, cliPackages...), "btrfs-progs", "e2fsprogs", "iptables", "openssl",
		"pigz", "uidmap", "xfsprogs", "xz-utils", "kmod", "procps", "tini")
	goPackages = []string{"ca-certificates", "curl", "netbase", "wget", "git", "openssh-client", "procps",
		"g++", "gcc", "libc6-dev", "make", "pkg-config"}
)

func rootfsSpec(name string, include []string) rootfs.Spec {
	return rootfs.Spec{Name: name, Suite: Suite, Variant: "minbase", Include: include}
}

// Bins are the built binaries an image takes, by their name in the image.
type Bins map[string]string

// cliSpec is docker:29-cli: the CLI on Debian, entrypoint and env as
// published (29/cli/Dockerfile: ENTRYPOINT docker-entrypoint.sh, CMD sh,
// DOCKER_TLS_CERTDIR=/certs, group docker 2375, /certs/client 1777).
func cliSpec(base string, bins Bins) imagespec.Spec {
	return imagespec.Spec{
		Ref:  CLIRef,
		Base: base,
		Files: []imagespec.File{
			{Dest: "/usr/local/bin/docker", Mode: 0o755, Src: bins["docker"]},
			{Dest: "/usr/local/bin/docker-entrypoint.sh", Mode: 0o755, Data: []byte(dockerEntrypoint)},
		},
		Run: []string{
			"groupadd --system --gid 2375 docker",
			"mkdir -p /certs/client && chmod 1777 /certs /certs/client",
			"docker --version",
		},
		Env:        []string{"DOCKER_VERSION=" + DockerVersion, "DOCKER_TLS_CERTDIR=/certs"},
		Entrypoint: []string{"docker-entrypoint.sh"},
		Cmd:        []string{"sh"},
		Source:     CLIPin.Repo + "@" + CLIPin.Tag,
	}
}

// legacyTools are the names the entrypoint's iptables-legacy PATH farm
// links, as the published dind image's (29/dind/Dockerfile).
var legacyTools = []string{"iptables", "iptables-save", "iptables-restore", "ip6tables", "ip6tables-save", "ip6tables-restore"}

// dindSpec is docker:29-dind: the CLI image's content plus the daemon,
// containerd, runc, docker-init, moby's hack/dind at the same tag and
// dockerd-entrypoint.sh (ENTRYPOINT, CMD [] as published).
func dindSpec(base string, bins Bins, dindScript []byte) imagespec.Spec {
	s := cliSpec(base, bins)
	s.Ref = DindRef
	s.Source = MobyPin.Repo + "@" + MobyPin.Tag
	for _, b := range []string{"dockerd", "docker-proxy", "containerd", "containerd-shim-runc-v2", "ctr", "runc"} {
		s.Files = append(s.Files, imagespec.File{Dest: "/usr/local/bin/" + b, Mode: 0o755, Src: bins[b]})
	}
	s.Files = append(s.Files,
		imagespec.File{Dest: "/usr/local/bin/dind", Mode: 0o755, Data: dindScript},
		imagespec.File{Dest: "/usr/local/bin/dockerd-entrypoint.sh", Mode: 0o755, Data: []byte(dockerdEntrypoint)},
	)
	farm := "mkdir -p /usr/local/sbin/.iptables-legacy"
	for _, t := range legacyTools {
		farm += " && ln -sT /usr/sbin/" + strings.Replace(t, "tables", "tables-legacy", 1) + " /usr/local/sbin/.iptables-legacy/" + t
	}
	s.Run = append(s.Run,
		"ln -s /usr/bin/tini-static /usr/local/bin/docker-init",
		farm,
		"addgroup --system dockremap && adduser --system --ingroup dockremap dockremap && echo 'dockremap:165536:65536' >> /etc/subuid && echo "+
			"'dockremap:165536:65536' >> /etc/subgid",
		"dockerd --version && containerd --version && ctr --version && runc --version && docker-init --version",
	)
	s.Entrypoint = []string{"dockerd-entrypoint.sh"}
	s.Cmd = []string{}
	return s
}

// goSpec is golang:1.26 on a base that already holds the Go toolchain at
// /usr/local/go; env and workdir as docker-library/golang 1.26/bookworm
// sets them (GOLANG_VERSION, GOTOOLCHAIN=local, GOPATH=/go, PATH with
// $GOPATH/bin and /usr/local/go/bin first, WORKDIR $GOPATH).
func goSpec(base, goVersion string) imagespec.Spec {
	return imagespec.Spec{
		Ref:  GoRef,
		Base: base,
		Run: []string{
			"mkdir -p /go/src /go/bin && chmod -R 1777 /go",
			"/usr/local/go/bin/go version",
		},
		Env: []string{"GOLANG_VERSION=" + goVersion[len("go"):], "GOTOOLCHAIN=local", "GOPATH=/go",
			"PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		WorkDir: "/go",
		Cmd:     []string{"bash"},
		Source:  "go.dev/dl " + goVersion,
	}
}
