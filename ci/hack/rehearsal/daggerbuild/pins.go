package daggerbuild

import (
	"path/filepath"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap"
)

// Version is the Dagger release the rehearsal builds: the CLI and engine
// the gpu-lab module is written against (dagger.json's engineVersion).
const Version = "v0.21.8"

// DaggerPin is github.com/dagger/dagger at Version.
var DaggerPin = gitsnap.Pin{Repo: "dagger/dagger", Tag: Version, Commit: "7902e644beeba4468f1ea786015b4be1d6d5bbcd"}

// DaggerSourcePaths are the parts of the tag's tree the Go builds read:
// the main module's packages and the two directories its go.mod replaces
// into (sdk/go, engine/distconsts). docs/ and toolchains/ are left out:
// nothing built imports them, and the snapshot lacks some of their blobs
// (large media files).
var DaggerSourcePaths = []string{
	"go.mod", "go.sum", "LICENSE", "NOTICE",
	"analytics", "auth", "cmd", "core", "dagql", "engine", "internal", "network", "sdk/go", "util", "version",
}

// EngineImageRef is the image name the CLI starts when no runner host is
// set (cmd/dagger/engine.go@v0.21.8 defaults to registry.dagger.io/engine
// at engine.Tag): the rehearsal tags its build so.
const EngineImageRef = "registry.dagger.io/engine:" + Version

// LDFlags set engine.Version and engine.Tag as upstream's builds do
// (toolchains/cli-dev/main.go:70-73 and
// toolchains/engine-dev/build/builder.go:227-233 @v0.21.8), with symbols
// and DWARF left out (GoBinaryOpts NoSymbols, NoDwarf there).
const LDFlags = "-s -w -X github.com/dagger/dagger/engine.Version=" + Version + " -X github.com/dagger/dagger/engine.Tag=" + Version

// EngineBuildTags are the tags upstream builds the engine's binaries with
// (toolchains/engine-dev/build/builder.go:240-245 @v0.21.8).
var EngineBuildTags = []string{"dfexcludepatterns", "dfparents"}

// RuncVersion and CNIVersion are upstream's
// (toolchains/engine-dev/consts/consts.go:20-21 @v0.21.8).
const (
	RuncVersion = "v1.4.2"
	CNIVersion  = "v1.9.0"
)

// CNIPlugins are the plugins upstream puts in /opt/cni/bin
// (cniPlugins in toolchains/engine-dev/build/builder.go @v0.21.8).
var CNIPlugins = []string{"plugins/main/bridge", "plugins/main/loopback", "plugins/meta/firewall", "plugins/ipam/host-local"}

// SnapshotDir is the directory the fetch tool keeps a GitHub repository's
// snapshot in under its mirror root ("dagger/dagger" →
// "dagger+dagger/repo").
func SnapshotDir(repo string) string {
	return filepath.Join(strings.ReplaceAll(repo, "/", "+"), "repo")
}
