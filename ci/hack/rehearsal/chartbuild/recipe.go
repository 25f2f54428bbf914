package chartbuild

import (
	"fmt"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// The upstream repositories the charts are made from (owner/name as GitHub
// spells them; each chart's Chart.yaml names its own under sources).
const (
	HAMiRepo        = "Project-HAMi/HAMi"
	KamajiRepo      = "clastix/kamaji"
	KamajiEtcdRepo  = "clastix/kamaji-etcd"
	CertManagerRepo = "cert-manager/cert-manager"
)

// kamajiLatest is the version of Kamaji's floating chart: Chart.yaml says
// 0.0.0+latest on master (kamaji 26.8.2-edge charts/kamaji/Chart.yaml:20)
// and .github/workflows/helm.yaml publishes it on every push to master.
const kamajiLatest = "0.0.0+latest"

// kind says which upstream publish step a chart's recipe repeats.
type kind string

const (
	// kindHAMi: charts/Makefile `package` (HAMi v2.10.0 charts/Makefile:3,
	// 44): update-versions, helm dependency update, helm package ./hami.
	kindHAMi kind = "hami"
	// kindKamaji: stefanprodan/helm-gh-pages, which Kamaji's
	// .github/workflows/helm.yaml:41-44 runs on charts/: helm dependency
	// update, then helm package (src/entrypoint.sh:149,166 at 89c6698).
	kindKamaji kind = "kamaji"
	// kindCertManager: make/manifests.mk's $(bin_dir)/cert-manager-$(VERSION).tgz
	// (cert-manager v1.18.3 make/manifests.mk:89-126).
	kindCertManager kind = "cert-manager"
)

// Recipe is where one pinned chart comes from and how it is made.
type Recipe struct {
	Chart images.Chart
	Kind  kind
	// Repo is the upstream repository, Ref the tag the chart is made from
	// and Commit the commit the tag is pinned to (imagebuild.PinFor): a
	// snapshot whose tag names another commit is refused.
	Repo, Ref, Commit string
	// ChartDir is the chart's directory in the repository.
	ChartDir string
	// Why says why Ref is the source of this chart version.
	Why string
}

// recipeFor maps a chart the lab pins to its source. Kamaji's chart has no
// version of its own (every master push republishes 0.0.0+latest), so it is
// made at the tag of the Kamaji image the lab pins: Kamaji's weekly edge
// release tags master's head YY.M.WEEK-edge and builds the images from
// that tag (kamaji 26.8.2-edge .github/workflows/release.yml:3-35). The tag
// 26.8.2-edge is ddbabd8 (committed 2026-08-03 06:32 UTC, the cron's Monday
// 07:00 UTC run), which is also master's head in the fetched snapshot: the
// push of that commit published the last 0.0.0+latest, the chart written
// for that controller.
func recipeFor(c images.Chart, v lab.Versions) (Recipe, error) {
	r, err := unpinnedRecipe(c, v)
	if err != nil {
		return Recipe{}, err
	}
	pin, err := imagebuild.PinFor(r.Repo, r.Ref)
	if err != nil {
		return Recipe{}, fmt.Errorf("chart %s %s: %w", c.Name, c.Version, err)
	}
	r.Commit = pin.Commit
	return r, nil
}

// snapshot is the pinned source the recipe is made from.
func (r Recipe) snapshot() imagebuild.Snapshot {
	return imagebuild.Snapshot{Repo: r.Repo, Tag: r.Ref, Commit: r.Commit}
}

func unpinnedRecipe(c images.Chart, v lab.Versions) (Recipe, error) {
	switch c.Name {
	case render.HAMiChartName:
		return Recipe{Chart: c, Kind: kindHAMi, Repo: HAMiRepo, Ref: "v" + strings.TrimPrefix(c.Version, "v"),
			ChartDir: "charts/hami",
			Why:      "HAMi tags each release v<chart version>; the chart at the tag is the release's (charts/Makefile package)"}, nil
	case images.KamajiChartName:
		if c.Version != kamajiLatest {
			return Recipe{}, fmt.Errorf("chart %s %s: only %s is made from source (at the Kamaji image's tag); pin %s or add a recipe", c.Name,
				c.Version, kamajiLatest, kamajiLatest)
		}
		if v.KamajiImage == "" {
			return Recipe{}, fmt.Errorf("chart %s %s: no Kamaji image version pinned: the chart is made at the image's tag", c.Name, c.Version)
		}
		return Recipe{Chart: c, Kind: kindKamaji, Repo: KamajiRepo, Ref: v.KamajiImage, ChartDir: "charts/kamaji",
			Why: "0.0.0+latest is republished on every master push (.github/workflows/helm.yaml); the weekly edge release tags master's head " +
				v.KamajiImage + " and builds that image from it (.github/workflows/release.yml), so the chart of that commit is the one " +
				"published with it"}, nil
	case images.CertManagerChartName:
		return Recipe{Chart: c, Kind: kindCertManager, Repo: CertManagerRepo, Ref: c.Version, ChartDir: "deploy/charts/cert-manager",
			Why: "cert-manager's release chart is generated at the release tag by make/manifests.mk with VERSION = git describe = the tag"}, nil
	}
	return Recipe{}, fmt.Errorf("chart %s %s: no recipe (chartbuild knows %s, %s and %s; read the chart's upstream publish step and add one)",
		c.Name, c.Version, render.HAMiChartName, images.KamajiChartName, images.CertManagerChartName)
}

// repos are the upstream repositories the recipes need git directories of.
func repos(rs []Recipe) []string {
	seen := map[string]bool{}
	var out []string
	add := func(r string) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, r := range rs {
		add(r.Repo)
		if r.Kind == kindKamaji {
			add(KamajiEtcdRepo)
		}
	}
	return out
}
