package main

import (
	"context"
	"fmt"

	"dagger/gpu-lab/internal/dagger"
	"dagger/gpu-lab/labcmd"
)

// bundle fetches every image the lab runs that no node image holds, each as
// a Dagger container exported as a tarball, and every chart the lab
// installs (chartArchives), into a directory with labctl's index
// (labcmd.BundleDir): the engine's content-addressed cache holds the layers
// and the archives, so only the first run on an engine (or a cold hosted
// runner without a shared cache) reaches the registries and chart
// repositories. labctl names the images and charts (`labctl images
// --bundle-index`, derived from the lab file) and, once the tarballs are
// there, prints the same index with each tarball's image digests (its
// --archives); the module adds nothing of its own. Nothing here touches
// the Docker service, so Dagger may cache all of it.
//
// The digests are what lets `labctl up --images` tie a digest-pinned image
// (the kind node image) to its pin when the daemon cannot, and the SDK
// gives none: Container.AsTarball returns only a File (dagger v0.21.8
// core/container_image.go:251-315; internal/dagger/dagger.gen.go
// AsTarball), Container.Export only the host path it wrote (the resolver
// drops the descriptor the core export returns: core/schema/container.go
// :3803-3812), ImageRef only the reference From resolved (:4050-4052). The
// tarball holds Dagger's own manifest and config, not the registry's
// (engine/engineutil/containerimage.go:46-61 builds the config from the
// platform and the container's config alone; :137 exports the manifest it
// commits, for one platform engine/engineutil/imageexport/writer.go:117-148,
// with containerd's archive exporter, whose index.json and manifest.json
// name that manifest and config: containerd v2.2.3
// core/images/archive/exporter.go:341-350). The engine pulled each image by
// its pinned digest, so what the index records of the tarball is the
// pinned image; labctl reads the digests from the tarball's own index.json
// and manifest.json (ci/images ReadArchive) and checks them again when it
// loads the bundle.
func (l *Lab) bundle(ctx context.Context) (*dagger.Directory, error) {
	index, err := l.tool().WithExec(labcmd.BundleIndex()).Stdout(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the lab's images and charts (labctl images --bundle-index): %w", err)
	}
	b, err := labcmd.ParseBundleIndex(index)
	if err != nil {
		return nil, err
	}
	tarballs := dag.Directory()
	for _, e := range b.Images {
		tarballs = tarballs.WithFile(e.File, dag.Container().From(e.Ref).AsTarball())
	}
	recorded, err := l.tool().WithMountedDirectory(labcmd.BundleDir, tarballs).
		WithExec(labcmd.RecordBundleIndex(labcmd.BundleDir)).Stdout(ctx)
	if err != nil {
		return nil, fmt.Errorf("fetching the lab's images, or reading their tarballs' digests (labctl images --bundle-index --archives): %w", err)
	}
	if err := labcmd.CheckRecorded(b, recorded); err != nil {
		return nil, err
	}
	charts, err := l.charts(ctx, b.Charts)
	if err != nil {
		return nil, err
	}
	dir := tarballs.WithNewFile(labcmd.BundleIndexFile, recorded).
		WithDirectory(labcmd.BundleChartsDir, charts)
	dir, err = dir.Sync(ctx)
	if err != nil {
		return nil, fmt.Errorf("fetching the lab's images and charts: %w", err)
	}
	return dir, nil
}

// charts are the lab's chart archives: the module's --charts directory
// when given (every archive the index names must be in it, or the error
// names each missing one and how to make it), else pulled by chartArchives.
func (l *Lab) charts(ctx context.Context, charts []labcmd.BundleChart) (*dagger.Directory, error) {
	if l.Charts == nil {
		return l.chartArchives(charts), nil
	}
	entries, err := l.Charts.Entries(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading --charts: %w", err)
	}
	if err := labcmd.MissingCharts(charts, entries); err != nil {
		return nil, err
	}
	dir := dag.Directory()
	for _, c := range charts {
		dir = dir.WithFile(c.File, l.Charts.File(c.File))
	}
	return dir, nil
}

// chartArchives pulls each chart with the pinned helm CLI, one exec per
// chart, into a directory of archives named as labctl's index says. Each
// exec is cached by its inputs: the runner image, the helm build and the
// command line, i.e. the chart's name, repository and pinned version. A
// changed pin fetches that chart alone again; an unchanged one is never
// fetched twice on an engine, or with a shared Dagger cache.
//
// One pin is not immutable: Kamaji's chart version 0.0.0+latest. clastix
// republishes charts/kamaji under that same version on every push to
// master (clastix/kamaji@26.8.2-edge:charts/kamaji/Chart.yaml version
// 0.0.0+latest; .github/workflows/helm.yaml, job release: helm-gh-pages
// to https://clastix.github.io/charts). So the cache keeps serving the
// archive this engine fetched first, however old, until the cache is
// pruned, and a cold engine installs whatever the repository holds that
// day: two engines may install different Kamaji charts under one version.
// The controller image is pinned on its own (versions.kamajiImage), so what
// can differ is the chart's templates, CRDs and kamaji-etcd dependency.
func (l *Lab) chartArchives(charts []labcmd.BundleChart) *dagger.Directory {
	dir := dag.Directory()
	for _, c := range charts {
		pulled := dag.Container().From(labcmd.RunnerImage).
			WithFile(labcmd.HelmPath, l.Helm, dagger.ContainerWithFileOpts{Permissions: 0o755}).
			WithExec(labcmd.PullChart(c, labcmd.PulledChart(c))).
			File(labcmd.PulledChart(c))
		dir = dir.WithFile(c.File, pulled)
	}
	return dir
}
