// Builds the multi-tenant GPU lab (kind, Kamaji tenant control planes, HAMi
// with simulated GPUs) inside a Docker-in-Docker service, runs gpu-lab's
// conformance suite against it and returns JUnit, JSON, Markdown and HTML
// reports. Everything runs through labctl, the same program a developer runs
// on their own Docker; this module only builds it, provides the daemon and
// carries the reports out.
package main

import (
	"dagger/gpu-lab/internal/dagger"
	"dagger/gpu-lab/labcmd"
)

// GpuLab is the module: the gpu-lab source tree it builds labctl from.
type GpuLab struct {
	// +private
	Source *dagger.Directory
}

// New loads the gpu-lab source tree.
func New(
	// The gpu-lab repository (defaults to the repository this module lives
	// in, without .git, reports, local lab state and the build outputs
	// .gitignore lists, which would otherwise be uploaded and rebuild labctl).
	// +defaultPath="/"
	// +ignore=[".git", "reports", ".lab", "bin", "**/*.test", "ci/testenv/k8sbin/bin"]
	source *dagger.Directory,
) *GpuLab {
	return &GpuLab{Source: source}
}

// goBuilder is a Go container with the module and build caches mounted.
func goBuilder() *dagger.Container {
	return dag.Container().From(labcmd.GoImage).
		WithMountedCache("/go/pkg/mod", dag.CacheVolume(labcmd.GoModCache)).
		WithMountedCache("/root/.cache/go-build", dag.CacheVolume(labcmd.GoBuildCache)).
		WithEnvVariable("CGO_ENABLED", "0").
		WithEnvVariable("GOTOOLCHAIN", "auto")
}

// helm builds the pinned helm CLI the stages call (cached like any build).
func helm() *dagger.File {
	return goBuilder().
		WithEnvVariable("GOBIN", "/out").
		WithExec([]string{"go", "install", "-trimpath", "helm.sh/helm/v3/cmd/helm@" + labcmd.HelmVersion}).
		File("/out/helm")
}

// Labctl builds the labctl binary from ci/ (static, for the engine's
// platform). The Go module and build caches live on cache volumes, and only
// go.mod, go.sum, ci/ and manifests/ are inputs, so the build is cached until
// one of them changes.
func (m *GpuLab) Labctl() *dagger.File {
	return goBuilder().
		WithDirectory("/src", m.Source, dagger.ContainerWithDirectoryOpts{Include: labcmd.BuildInclude}).
		WithWorkdir("/src").
		WithExec([]string{"go", "build", "-trimpath", "-o", "/out/labctl", "./ci/cmd/labctl"}).
		File("/out/labctl")
}

// Dind is the Docker-in-Docker service the lab runs in. It needs privileged
// nesting (InsecureRootCapabilities) and keeps /var/lib/docker on a Locked
// cache volume, so pulled images survive between runs on the same engine.
// Expose it on the host with `dagger call dind up --ports 2375:2375`.
func (m *GpuLab) Dind() *dagger.Service {
	return dind()
}
