package moduleimages

import (
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
)

// DockerVersion is the Docker release the module's docker:29 images stand
// for: the newest 29.x both repositories tag.
const DockerVersion = "29.7.2"

// The two vendored trees Docker is built from: neither is a module the
// proxy can serve at a release (moby's is github.com/moby/moby/v2 tagged
// docker-v*, the CLI has no go.mod at all), and both carry every dependency
// in vendor/, so they build with no network.
var (
	MobyPin = gitsnap.Pin{Repo: "moby/moby", Tag: "docker-v" + DockerVersion, Commit: "6a43e3d5afddf4111da0f864bbc7cae5d7e95001"}
	CLIPin  = gitsnap.Pin{Repo: "docker/cli", Tag: "v" + DockerVersion, Commit: "a7dcaa6fdb6ed04aacbfdc76357fdae01605609e"}
)

// Versions moby pins for its static binaries (moby@docker-v29.7.2
// Dockerfile:145 CONTAINERD_VERSION=v2.3.3, :251 RUNC_VERSION=v1.4.3; the
// same containerd is moby's go.mod requirement, go.mod:30).
const (
	ContainerdVersion = "v2.3.3"
	RuncVersion       = "v1.4.3"
)

// vendorBuild is a Go build inside a vendored git snapshot: no module
// download, only the tree's vendor/ directory.
type vendorBuild struct {
	Name string
	Pin  gitsnap.Pin
	// GOPATHImport, when set, builds in GOPATH mode with the tree at
	// $GOPATH/src/<GOPATHImport> (docker/cli has vendor.mod, no go.mod).
	GOPATHImport string
	Packages     []string
	Tags         []string
	LDFlags      string
	// Rename maps go build's binary name to the image's.
	Rename map[string]string
}

// dockerdBuild is hack/make/binary-daemon and binary-proxy as hack/make.sh
// runs them for a static build: tags "netgo osusergo static_build
// nri_no_wasm" (hack/make.sh:91), -w (:88) and the dockerversion -X flags
// (hack/make/.go-autogen:3-5; PlatformName and ProductName stay empty, as
// hack/make.sh leaves them without PLATFORM/PRODUCT); cgo off, which hack/make/.binary allows for
// DOCKER_STATIC. The module build reads vendor/ (go.mod's go 1.26.3 with a
// vendor/modules.txt makes -mod=vendor the default).
func dockerdBuild() vendorBuild {
	x := func(k, v string) string { return " -X github.com/moby/moby/v2/dockerversion." + k + "=" + v }
	return vendorBuild{
		Name:     "dockerd-" + DockerVersion,
		Pin:      MobyPin,
		Packages: []string{"./cmd/dockerd", "./cmd/docker-proxy"},
		Tags:     []string{"netgo", "osusergo", "static_build", "nri_no_wasm"},
		LDFlags:  "-w" + x("Version", DockerVersion) + x("GitCommit", MobyPin.Commit[:7]),
	}
}

// cliBuild is docker/cli's scripts/build/binary: GOPATH mode
// (GO111MODULE=auto with no go.mod, scripts/build/binary:13; the tree under
// /go/src/github.com/docker/cli as its Dockerfile's WORKDIR), tag
// grpcnotrace and the cli/version -X flags (scripts/build/.variables:92-94,
// :109). cgo off: .variables only adds osusergo/netgo for a static cgo link.
func cliBuild() vendorBuild {
	x := func(k, v string) string { return " -X github.com/docker/cli/cli/version." + k + "=" + v }
	return vendorBuild{
		Name:         "docker-cli-" + DockerVersion,
		Pin:          CLIPin,
		GOPATHImport: "github.com/docker/cli",
		Packages:     []string{"./cmd/docker"},
		Tags:         []string{"grpcnotrace"},
		LDFlags:      x("GitCommit", CLIPin.Commit[:7]) + x("Version", DockerVersion),
	}
}

// containerdPrograms are containerd's `make STATIC=1 binaries` through the
// module proxy: tags urfave_cli_no_docs and "osusergo netgo static_build"
// (containerd@v2.3.3 Makefile:94-97), the shim with no_grpc and cgo off
// (:100, :275), the version -X flags (:105, PKG :84).
func containerdPrograms() []gobuild.Program {
	const mod = "github.com/containerd/containerd/v2"
	ld := "-X " + mod + "/version.Version=" + ContainerdVersion + " -X " + mod + "/version.Package=" + mod
	tags := []string{"urfave_cli_no_docs", "osusergo", "netgo", "static_build"}
	return []gobuild.Program{{
		Name: "containerd-" + ContainerdVersion, Module: mod, Version: ContainerdVersion,
		Packages: []string{mod + "/cmd/containerd", mod + "/cmd/ctr"},
		Tags:     tags, LDFlags: ld, Trimpath: true, GoDirective: "1.26.3",
	}, {
		Name: "containerd-shim-" + ContainerdVersion, Module: mod, Version: ContainerdVersion,
		Packages: []string{mod + "/cmd/containerd-shim-runc-v2"},
		Tags:     append(tags, "no_grpc"), LDFlags: ld, Trimpath: true, GoDirective: "1.26.3",
	}}
}

// runcProgram is runc's `make static` (runc@v1.4.3 Makefile:55-57, :64):
// cgo on (libcontainer/nsenter is C), tags "seccomp urfave_cli_no_docs
// netgo osusergo", linked -extldflags -static (:44). It needs
// libseccomp-dev on the build machine (Prerequisites checks).
func runcProgram() gobuild.Program {
	return gobuild.Program{
		Name: "runc-" + RuncVersion, Module: "github.com/opencontainers/runc", Version: RuncVersion,
		Packages: []string{"github.com/opencontainers/runc"},
		Tags:     []string{"seccomp", "urfave_cli_no_docs", "netgo", "osusergo"},
		LDFlags:  "-X main.gitCommit=" + RuncVersion + " -extldflags -static",
		CGO:      true, Trimpath: true, GoDirective: "1.24.0",
	}
}
