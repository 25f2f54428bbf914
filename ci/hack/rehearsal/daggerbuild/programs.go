package daggerbuild

import (
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
)

const daggerModule = "github.com/dagger/dagger"

// CLIProgram is the dagger CLI from the tag's tree: static
// (CGO_ENABLED=0), trimmed, engine.Version/Tag set (LDFlags), the four
// refused modules from the file proxy at localProxy (a file:// URL).
func CLIProgram(tree, localProxy string) gobuild.Program {
	return gobuild.Program{
		Name: "dagger-cli-" + Version, Module: daggerModule, Version: Version,
		Tree: tree, TreeKey: DaggerPin.Commit, LocalProxy: localProxy,
		Packages: []string{daggerModule + "/cmd/dagger"},
		LDFlags:  LDFlags, Trimpath: true,
	}
}

// EngineProgram is the engine image's Go programs from the tag's tree,
// with the engine's build tags, named as the image holds them
// (toolchains/engine-dev/build/builder.go Engine and
// consts/consts.go @v0.21.8), and the Go SDK's codegen binary.
// engine.Version/Tag are set for all of them: upstream sets them only for
// cmd/engine, and the others do not read them.
func EngineProgram(tree, localProxy string) gobuild.Program {
	return gobuild.Program{
		Name: "dagger-engine-" + Version, Module: daggerModule, Version: Version,
		Tree: tree, TreeKey: DaggerPin.Commit, LocalProxy: localProxy,
		Packages: []string{
			daggerModule + "/cmd/engine", daggerModule + "/cmd/init", daggerModule + "/cmd/dialstdio",
			daggerModule + "/cmd/dnsname", daggerModule + "/cmd/codegen",
		},
		Tags: EngineBuildTags, LDFlags: LDFlags, Trimpath: true,
		Rename: map[string]string{"engine": "dagger-engine", "init": "dagger-init", "dialstdio": "dial-stdio"},
	}
}

// CNIProgram is the CNI plugins upstream puts in the engine image, from
// the module proxy at CNIVersion.
func CNIProgram() gobuild.Program {
	const mod = "github.com/containernetworking/plugins"
	p := gobuild.Program{Name: "cni-plugins-" + CNIVersion, Module: mod, Version: CNIVersion, LDFlags: "-s -w", Trimpath: true}
	for _, pl := range CNIPlugins {
		p.Packages = append(p.Packages, mod+"/"+pl)
	}
	return p
}

// RuncProgram is runc at RuncVersion from the module proxy, built as
// upstream builds it (toolchains/engine-dev/build/builder.go runcBin
// @v0.21.8: cgo, tags "seccomp netgo osusergo", main.version) but linked
// against Debian's glibc and libseccomp (the image's base has both)
// rather than statically against musl.
func RuncProgram() gobuild.Program {
	const mod = "github.com/opencontainers/runc"
	return gobuild.Program{
		Name: "runc-" + RuncVersion, Module: mod, Version: RuncVersion,
		Packages: []string{mod}, CGO: true, Trimpath: true,
		Tags:    []string{"seccomp", "netgo", "osusergo"},
		LDFlags: "-X main.version=" + RuncVersion,
	}
}
