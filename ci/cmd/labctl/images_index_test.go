package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/images/chartstest"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// bundleIndex runs `labctl images --bundle-index` with args and decodes it.
func bundleIndex(t *testing.T, args ...string) (images.Index, string) {
	t.Helper()
	out, _, err := run(t, newImagesCommand, append([]string{"--bundle-index"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	var idx images.Index
	if err := json.Unmarshal([]byte(out), &idx); err != nil {
		t.Fatalf("--bundle-index printed no index: %v\n%s", err, out)
	}
	return idx, out
}

// TestBundleIndexNamesEveryChart: --bundle-index names every chart the
// stages install, at its pin, in the file up --images looks for, and
// --charts=false leaves them out. The Dagger module fetches what this
// index names and hands labctl the index as printed.
func TestBundleIndexNamesEveryChart(t *testing.T) {
	l := lab.Default()
	idx, raw := bundleIndex(t)
	want := images.PinnedCharts(l)
	if len(idx.Charts) != len(want) || len(want) != 3 {
		t.Fatalf("--bundle-index charts = %+v, want the %d of charts.Pinned", idx.Charts, len(want))
	}
	for i, c := range want {
		got := idx.Charts[i]
		if got.Chart != c || got.File != images.ChartArchiveName(c) {
			t.Errorf("chart %d = %+v, want %+v in %s", i, got, c, images.ChartArchiveName(c))
		}
	}
	for _, key := range []string{`"name": "kamaji"`, `"repo": "https://clastix.github.io/charts"`,
		`"version": "0.0.0+latest"`, `"file": "kamaji-0.0.0+latest.tgz"`} {
		if !strings.Contains(raw, key) {
			t.Errorf("--bundle-index lacks %s:\n%s", key, raw)
		}
	}
	list, err := images.List(l)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Images) != len(images.BundleRefs(list)) {
		t.Errorf("--bundle-index names %d images, the bundle holds %d", len(idx.Images), len(images.BundleRefs(list)))
	}
	only, raw := bundleIndex(t, "--charts=false")
	if len(only.Charts) != 0 || strings.Contains(raw, `"charts"`) || len(only.Images) != len(idx.Images) {
		t.Errorf("--bundle-index --charts=false = %s", raw)
	}
}

// TestBundleIndexIsWhatUpReads: the printed index, written into a bundle
// beside the archives it names, makes up --images install every chart
// from the bundle; an archive it names but the bundle lacks is refused.
func TestBundleIndexIsWhatUpReads(t *testing.T) {
	t.Setenv("DOCKER_HOST", "tcp://docker:2375")
	idx, raw := bundleIndex(t)
	if len(idx.Charts) == 0 {
		t.Fatalf("--bundle-index names no chart:\n%s", raw)
	}
	bundle := t.TempDir()
	if err := os.WriteFile(filepath.Join(bundle, images.IndexFile), []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(bundle, images.ChartsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range idx.Charts {
		chartstest.Write(t, filepath.Join(bundle, images.ChartsDir, c.File), chartstest.Archive(c.Name, c.Version)...)
	}
	dryRun := func() (string, error) {
		out, err := runRoot(t, "up", "--dry-run", "--state-dir", t.TempDir(), "--images", bundle)
		return out, err
	}
	out, err := dryRun()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range idx.Charts {
		if want := " " + filepath.Join(bundle, images.ChartsDir, c.File) + " --namespace"; !strings.Contains(out, want) {
			t.Errorf("dry run does not install %s from the bundle (%q):\n%s", c.Name, want, out)
		}
	}
	if strings.Contains(out, "--repo") || strings.Contains(out, "lacks") {
		t.Errorf("with every archive the index names, something still comes from a repository:\n%s", out)
	}
	if err := os.Remove(filepath.Join(bundle, images.ChartsDir, idx.Charts[0].File)); err != nil {
		t.Fatal(err)
	}
	if _, err := dryRun(); err == nil || !strings.Contains(err.Error(), idx.Charts[0].File) {
		t.Errorf("an archive the index names is missing: err = %v, want one naming %s", err, idx.Charts[0].File)
	}
}
