package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func TestImagesListsEveryImageByStageAndPlace(t *testing.T) {
	out, _, err := run(t, newImagesCommand())
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
		"built by labctl",
		"registry.k8s.io/kube-apiserver:v1.36.4                                                        Always        bundle (up --images makes it IfNotPresent)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("labctl images lacks %q:\n%s", want, out)
		}
	}
	refs, _, err := run(t, newImagesCommand(), "--bundle-refs")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(refs)
	if want := images.BundleRefs(list); len(got) != len(want) || len(got) < 15 {
		t.Errorf("--bundle-refs printed %d references, want %d: %v", len(got), len(want), got)
	}
	src, _, err := run(t, newImagesCommand(), "--sources")
	if err != nil || !strings.Contains(src, "from kamaji 26.8.2-edge") {
		t.Errorf("--sources: %v\n%s", err, src)
	}
}

// TestImagesSaveNamesTheImageItCannotGet: without a registry, saving fails
// on the first image the daemon lacks, and says which.
func TestImagesSaveNamesTheImageItCannotGet(t *testing.T) {
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("skipping: no docker CLI")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := (docker.CLI{}).Ping(ctx); err != nil {
		t.Skipf("skipping: no Docker daemon (%v)", err)
	}
	if ok, _ := (docker.CLI{}).ImageExists(ctx, lab.Default().Versions.KindNodeImage); ok {
		t.Skip("skipping: this daemon has the kind node image (a registry answered once)")
	}
	_, _, err := run(t, newImagesCommand(), "save", t.TempDir(), "--pull-timeout", "20s")
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
	up, _, _ := root.Find([]string{"up"})
	_ = up.Flags().Set("dry-run", "false")
	_ = up.Flags().Set("images", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"preload into gpu-lab-control-plane: docker save | ctr import quay.io/jetstack/cert-manager-controller:v1.18.3",
		"preload into every worker: docker save | ctr import docker.io/projecthami/hami:v2.10.0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
}
