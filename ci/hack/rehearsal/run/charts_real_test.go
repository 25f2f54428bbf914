package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// ChartsEnv names a directory of the maintainer-made chart archives
// (opt-in): the test checks labctl accepts them for the seed lab.
const ChartsEnv = "GPU_LAB_REHEARSAL_CHARTS"

// The maintainer's chart archives (made once from the pinned tags, kept
// outside the repository) are what labctl up --images accepts for the
// seed lab: names, versions and files as ci/images reads them.
func TestMaintainerChartsAccepted(t *testing.T) {
	dir := os.Getenv(ChartsEnv)
	if dir == "" {
		t.Skipf("skipping: set %s to the directory of the chart archives (e.g. ~/.cache/gpu-lab/rehearsal/charts)", ChartsEnv)
	}
	bundle := t.TempDir()
	if err := images.WriteIndex(bundle, images.Index{Images: []images.Entry{{Ref: "kindest/node:v1.37.0", File: "n.tar"}}}); err != nil {
		t.Fatal(err)
	}
	want := images.PinnedCharts(lab.Default())
	idx, err := attachCharts(bundle, dir, want)
	if err != nil {
		t.Fatal(err)
	}
	archives, missing, err := images.ChartArchives(bundle, idx, want)
	if err != nil || len(missing) > 0 {
		t.Fatalf("ChartArchives: missing %v, %v", missing, err)
	}
	for _, c := range want {
		m, err := images.ReadChartArchive(archives[c.Name])
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: chart %s %s (%s)", filepath.Base(archives[c.Name]), m.Name, m.Version, c.Repo)
	}
}
