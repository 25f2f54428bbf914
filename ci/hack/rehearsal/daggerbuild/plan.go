package daggerbuild

import (
	"fmt"
	"io"
	"strings"
)

// WritePlan writes what Build builds and from where, without building.
func WritePlan(w io.Writer, l Layout, snaps Snapshots) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("Dagger %s, built into %s:", Version, l.Root)
	p("  source       github.com/%s tag %s (commit %s) from %s: %s", DaggerPin.Repo, DaggerPin.Tag, DaggerPin.Commit[:12],
		snaps.Dir(DaggerPin.Repo), strings.Join(DaggerSourcePaths, " "))
	for _, m := range RefusedModules {
		p("  file proxy   %s@%s zipped from %s at %s, h1 checked against the tag's go.sum", m.Path, m.Version, snaps.Dir(m.Repo), m.Commit[:12])
	}
	p("  CLI          cmd/dagger, CGO_ENABLED=0, -ldflags %q -> %s/bin/dagger", LDFlags, l.Root)
	p("  engine       cmd/engine cmd/init cmd/dialstdio cmd/dnsname cmd/codegen, tags %s", strings.Join(EngineBuildTags, ","))
	p("  runc         github.com/opencontainers/runc@%s (cgo, seccomp) through the module proxy", RuncVersion)
	p("  CNI plugins  github.com/containernetworking/plugins@%s: %s", CNIVersion, strings.Join(CNIPlugins, " "))
	p("  root fs      debootstrap %s %s: %s", EngineRootfs.Suite, EngineRootfs.Name, strings.Join(EngineRootfs.Include, " "))
	p("  Go SDK       OCI layout: debootstrap %s %s (%s) + this machine's Go + codegen; env %s", GoSDKRootfs.Suite, GoSDKRootfs.Name,
		strings.Join(GoSDKRootfs.Include, " "), strings.Join(GoSDKConfig("goX").Env[1:], " "))
	p("  image        %s on the machine's Docker, saved as a docker-archive under %s/image", EngineImageRef, l.Root)
	p("  Go proxy     %s@%s from %s, plus what the module's codegen steps and `go mod download all` fetch, under %s/proxy", GoSDKModule.Path,
		GoSDKModule.Version, snaps.Dir(GoSDKModule.Repo), l.Root)
}
