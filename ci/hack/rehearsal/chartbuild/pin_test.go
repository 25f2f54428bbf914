package chartbuild

import (
	"context"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gitsnap/gitsnaptest"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// hamiSource is a HAMi-shaped repository at tag v2.10.0: what makeHAMi
// reads (VERSION and charts/hami).
func hamiSource(t *testing.T) (gitDir, commit string) {
	return gitsnaptest.Repo(t, map[string]string{
		"VERSION":                 "v2.10.0",
		"charts/hami/Chart.yaml":  hamiChartLines,
		"charts/hami/values.yaml": hamiValuesLines,
		"README.md":               "x\n",
	}, "v2.10.0")
}

var hamiChart = images.Chart{Name: render.HAMiChartName, Version: "2.10.0"}

// A git directory whose config and info/attributes name a smudge filter
// (issue 38's recipe) does not get it run by the chart's extraction.
func TestMakeHAMiRunsNoFilterOfTheGitDir(t *testing.T) {
	gitDir, commit := hamiSource(t)
	pwned := gitsnaptest.Poison(t, gitDir)
	r, err := recipeFor(hamiChart, lab.Versions{})
	if err != nil {
		t.Fatal(err)
	}
	r.Commit = commit // this repository's commit stands in for the pin
	dir, err := makeHAMi(context.Background(), r, gitDir, t.TempDir())
	gitsnaptest.Pwned(t, pwned)
	if err != nil {
		t.Fatalf("makeHAMi from a clean extraction: %v", err)
	}
	if !strings.HasSuffix(dir, "charts/hami") {
		t.Errorf("chart directory %s", dir)
	}
}

// The chart is made from the pinned commit only: a snapshot whose tag
// names another commit is refused, naming the move.
func TestMakeHAMiRefusesAMovedTag(t *testing.T) {
	gitDir, _ := hamiSource(t)
	r, err := recipeFor(hamiChart, lab.Versions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = makeHAMi(context.Background(), r, gitDir, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "the tag moved upstream") {
		t.Errorf("makeHAMi of a moved v2.10.0: %v, want an error saying the tag moved", err)
	}
}
