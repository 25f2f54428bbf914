package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker/dockertest"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/images/chartstest"
	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func TestImagesListsEveryImageByStageAndPlace(t *testing.T) {
	out, _, err := run(t, newImagesCommand)
	if err != nil {
		t.Fatal(err)
	}
	list, err := images.List(lab.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range list {
		if !strings.Contains(out, i.Ref) {
			t.Errorf("labctl images lacks %s", i.Ref)
		}
	}
	for _, want := range []string{
		"tenants  management node  registry.k8s.io/kube-apiserver:v1.36.4",
		"hami     tenant worker    docker.io/projecthami/hami:v2.10.0",
		"preloaded in kindest/node:v1.36.4@sha256:",
		"hami     tenant worker    ghcr.io/nvidia/nvml-mock:sha-0eeb2ee",
		"registry.k8s.io/kube-apiserver:v1.36.4                                                        " +
			"Always        bundle (up --images makes it IfNotPresent)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("labctl images lacks %q:\n%s", want, out)
		}
	}
	refs, _, err := run(t, newImagesCommand, "--bundle-refs")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(refs)
	if want := images.BundleRefs(list); len(got) != len(want) || len(got) < 15 {
		t.Errorf("--bundle-refs printed %d references, want %d: %v", len(got), len(want), got)
	}
	src, _, err := run(t, newImagesCommand, "--sources")
	if err != nil || !strings.Contains(src, "from kamaji 26.8.2-edge") {
		t.Errorf("--sources: %v\n%s", err, src)
	}
}

// TestImagesSaveNamesTheImageItCannotGet: without a registry, saving fails
// on the first image the daemon lacks, and says which.
func TestImagesSaveNamesTheImageItCannotGet(t *testing.T) {
	c := dockertest.Daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if ok, _ := c.ImageExists(ctx, lab.Default().Versions.KindNodeImage); ok {
		t.Skip("skipping: this daemon has the kind node image (a registry answered once)")
	}
	_, _, err := run(t, newImagesCommand, "save", t.TempDir(), "--pull-timeout", "20s")
	if err == nil || !strings.Contains(err.Error(), "kindest/node:v1.37.0") {
		t.Errorf("err = %v, want one naming the kind node image", err)
	}
}

// TestUpDryRunShowsThePreloading: with --images, each stage's plan starts
// with the images it imports into the nodes (the index alone is read).
func TestUpDryRunShowsThePreloading(t *testing.T) {
	t.Setenv("DOCKER_HOST", "tcp://docker:2375")
	list, err := images.List(lab.Default())
	if err != nil {
		t.Fatal(err)
	}
	bundle := t.TempDir()
	var idx images.Index
	for _, ref := range images.BundleRefs(list) {
		idx.Images = append(idx.Images, images.Entry{Ref: ref, File: images.ArchiveName(ref)})
	}
	if err := images.WriteIndex(bundle, idx); err != nil {
		t.Fatal(err)
	}
	out, err := runRoot(t, "up", "--dry-run", "--state-dir", t.TempDir(), "--images", bundle)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"preload into gpu-lab-control-plane: docker save | ctr import quay.io/jetstack/cert-manager-controller:v1.18.3",
		"preload into every worker, 2 at a time: docker save | ctr import docker.io/projecthami/hami:v2.10.0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
}

// standInHelm is a helm that answers `helm pull NAME ... --version V
// --destination D` by copying served/NAME-V.tgz into D under another name
// (helm names the file after the repository's URL).
func standInHelm(t *testing.T, l *lab.Lab) string {
	t.Helper()
	dir := t.TempDir()
	for _, c := range images.PinnedCharts(l) {
		chartstest.Write(t, filepath.Join(dir, c.Name+"-"+c.Version+".tgz"), chartstest.Archive(c.Name, c.Version)...)
	}
	script := `#!/bin/sh
[ "$1" = pull ] || exit 3
name=$2; shift 2
while [ $# -gt 0 ]; do
  case $1 in --version) v=$2;; --destination) d=$2;; esac; shift
done
cp "` + dir + `/$name-$v.tgz" "$d/from-repo.tgz"
`
	bin := filepath.Join(dir, "helm")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestBundleChartsAreSavedAndInstalledFrom: the charts saved into a bundle
// are what `up --images` installs from, without a repository; a bundle
// whose chart is not the pinned version is refused.
func TestBundleChartsAreSavedAndInstalledFrom(t *testing.T) {
	t.Setenv("DOCKER_HOST", "tcp://docker:2375")
	l := lab.Default()
	list, err := images.List(l)
	if err != nil {
		t.Fatal(err)
	}
	bundle := t.TempDir()
	var idx images.Index
	for _, ref := range images.BundleRefs(list) {
		idx.Images = append(idx.Images, images.Entry{Ref: ref, File: images.ArchiveName(ref)})
	}
	puller := helm.ChartPuller{Helm: helm.CLI{Bin: standInHelm(t, l)}}
	idx, err = saveBundleCharts(context.Background(), puller, l, bundle, idx, logTo(io.Discard, false))
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Charts) != 3 {
		t.Fatalf("charts saved: %+v", idx.Charts)
	}
	if read, err := images.ReadIndex(bundle); err != nil || len(read.Charts) != 3 || len(read.Images) != len(idx.Images) {
		t.Fatalf("index on disk = %+v, %v", read, err)
	}
	dryRun := func() (string, error) {
		out, err := runRoot(t, "up", "--dry-run", "--state-dir", t.TempDir(), "--images", bundle)
		return out, err
	}
	out, err := dryRun()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"upgrade --install cert-manager " + filepath.Join(bundle, "charts", "cert-manager-v1.18.3.tgz") + " --namespace",
		"upgrade --install kamaji " + filepath.Join(bundle, "charts", "kamaji-0.0.0+latest.tgz") + " --namespace",
		"upgrade --install hami " + filepath.Join(bundle, "charts", "hami-2.10.0.tgz") + " --namespace",
		"kind: MutatingAdmissionPolicy",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "--repo") || strings.Contains(out, "lacks") {
		t.Errorf("a chart from the bundle still comes from a repository:\n%s", out)
	}
	// The lab's pin moved on since the bundle was saved.
	idx.Charts[1].Version = "0.0.1"
	if err := images.WriteIndex(bundle, idx); err != nil {
		t.Fatal(err)
	}
	if _, err := dryRun(); err == nil || !strings.Contains(err.Error(), "holds chart kamaji 0.0.1, the lab pins 0.0.0+latest") {
		t.Errorf("stale chart: err = %v", err)
	}
}
