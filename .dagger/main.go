// Builds the multi-tenant GPU lab (kind, Kamaji tenant control planes, HAMi
// with simulated GPUs) inside a Docker-in-Docker service, runs gpu-lab's
// conformance suite against it and returns JUnit, JSON, Markdown and HTML
// reports. Everything runs through labctl, the same program a developer runs
// on their own Docker; this module only builds it, provides the daemon and
// carries the reports out.
package main

import (
	"errors"

	"dagger/gpu-lab/internal/dagger"
	"dagger/gpu-lab/labcmd"
)

// GpuLab is the module: the gpu-lab source tree it builds labctl from and
// the options of every run, declared once here (`dagger call --config=… lab-test`).
type GpuLab struct {
	// +private
	Source *dagger.Directory
	// +private
	Config *dagger.File
	// +private
	Versions []string
	// +private
	KeepGoing bool
	// +private
	Run string
	// +private
	Parallel int
	// +private
	Goproxy string
	// +private
	Gosumdb string
	// +private
	Charts *dagger.Directory
}

// New loads the gpu-lab source tree and the options every function uses.
// Bad options fail here, before anything is built.
func New(
	// The gpu-lab repository (defaults to the repository this module lives
	// in, without .git, reports, local lab state and the build outputs
	// .gitignore lists, which would otherwise be uploaded and rebuild labctl,
	// and without a runner's .env: Dagger reads the module's options there
	// from the host, and it may hold credentials).
	// +defaultPath="/"
	// +ignore=[".git", "reports", ".lab", "bin", "**/*.test", "ci/testenv/k8sbin/bin", ".env"]
	source *dagger.Directory,
	// Lab file (YAML); defaults to the seed lab: tenant-a with one A100 80GB,
	// tenant-b with two L4.
	// +defaultPath="/ci/lab/default-lab.yaml"
	config *dagger.File,
	// Version overrides written into the lab file's versions block, as
	// name=value (e.g. kubernetes=v1.35.8, hamiChart=2.10.0; hamiImage also
	// chooses quick-test's HAMi image).
	// +optional
	versions []string,
	// Keep going after a failing stage: run the remaining stages and the
	// suite anyway, so every failure shows up in one report.
	// +optional
	keepGoing bool,
	// Regular expression selecting suite cases by ID or name (e.g. 'TC-0[1-4]');
	// empty runs every case.
	// +optional
	run string,
	// Maximum number of cases running at once; 0 (labctl's default) runs them all at once.
	// +optional
	parallel int,
	// Go module proxy for the module's Go builds (labctl, helm, the unit
	// tests), as GOPROXY (e.g. https://goproxy.example.com); empty keeps the
	// Go image's default. For builds where the public proxy is out of reach.
	// +optional
	goproxy string,
	// Checksum database for those builds, as GOSUMDB (e.g. "sum.golang.org
	// https://goproxy.example.com/sumdb/sum.golang.org", or "off" where the
	// proxy is trusted and serves no checksum database); empty keeps Go's default.
	// +optional
	gosumdb string,
	// Chart archives to install instead of pulling them from their
	// repositories, for runners that cannot reach them: one NAME-VERSION.tgz
	// per chart the lab installs (`labctl images --bundle-index` lists them;
	// `helm pull NAME --repo REPO --version VERSION` makes each). labctl
	// checks each archive's Chart.yaml against the lab's pin.
	// +optional
	charts *dagger.Directory,
) (*GpuLab, error) {
	suite := labcmd.Suite{Run: run, Parallel: parallel}
	if _, err := labcmd.ParseOverrides(versions); err != nil {
		return nil, err
	}
	if err := errors.Join(suite.Check(), (labcmd.GoProxy{Proxy: goproxy, SumDB: gosumdb}).Check()); err != nil {
		return nil, err
	}
	return &GpuLab{Source: source, Config: config, Versions: versions, KeepGoing: keepGoing, Run: run, Parallel: parallel,
		Goproxy: goproxy, Gosumdb: gosumdb, Charts: charts}, nil
}

// goProxy is where the module's Go builds fetch modules, from the options.
func (m *GpuLab) goProxy() labcmd.GoProxy { return labcmd.GoProxy{Proxy: m.Goproxy, SumDB: m.Gosumdb} }

// suite is the suite's selection and pacing from the options.
func (m *GpuLab) suite() labcmd.Suite { return labcmd.Suite{Run: m.Run, Parallel: m.Parallel} }

// goBuilder is a Go container with the module and build caches mounted and
// the module's Go proxy options set.
func (m *GpuLab) goBuilder() *dagger.Container {
	c := dag.Container().From(labcmd.GoImage).
		WithMountedCache("/go/pkg/mod", dag.CacheVolume(labcmd.GoModCache)).
		WithMountedCache("/root/.cache/go-build", dag.CacheVolume(labcmd.GoBuildCache)).
		WithEnvVariable("CGO_ENABLED", "0").
		WithEnvVariable("GOTOOLCHAIN", "auto")
	for _, kv := range m.goProxy().Env() {
		c = c.WithEnvVariable(kv[0], kv[1])
	}
	return c
}

// helm builds the pinned helm CLI the stages call (cached like any build).
func (m *GpuLab) helm() *dagger.File {
	return m.goBuilder().
		WithEnvVariable("GOBIN", "/out").
		WithExec([]string{"go", "install", "-trimpath", "helm.sh/helm/v3/cmd/helm@" + labcmd.HelmVersion}).
		File("/out/helm")
}

// Labctl builds the labctl binary from ci/ (static, for the engine's
// platform). The Go module and build caches live on cache volumes, and the
// inputs are go.mod, go.sum and the non-test Go and embedded files of the
// packages labctl is built from (labcmd.BuildInclude), so the build is cached
// until one of them changes.
func (m *GpuLab) Labctl() *dagger.File {
	return m.goBuilder().
		WithDirectory("/src", m.Source, dagger.ContainerWithDirectoryOpts{Include: labcmd.BuildInclude, Exclude: labcmd.BuildExclude}).
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
