package labcmd

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// BundleChartsDir is where a bundle keeps its chart archives, inside
// BundleDir (ci/images ChartsDir; a test keeps them equal): labctl's
// `up --images DIR` installs each chart from DIR/charts/FILE, FILE being
// what the index names (NAME-VERSION.tgz).
const BundleChartsDir = "charts"

// BundleChart is one chart of the index (ci/images ChartEntry: "name",
// "repo", "version", "file"; a test keeps the JSON keys in step): a chart
// the stages install, its repository and pinned version, and the archive's
// file name under BundleChartsDir.
type BundleChart struct {
	Name    string `json:"name"`
	Repo    string `json:"repo"`
	Version string `json:"version"`
	File    string `json:"file"`
}

// PulledChartDir is where PullChart leaves the archive in the container
// that pulls it (a directory of its own, nothing else in it).
const PulledChartDir = "/chart"

// PulledChart is the archive of c in the pulling container.
func PulledChart(c BundleChart) string { return path.Join(PulledChartDir, c.File) }

// PullChart is the command that fetches one chart of the index with the
// pinned helm CLI (on PATH) into out. It runs the `helm pull` labctl's
// `images save` runs (ci/stages PullArgs: helm v3.19.0 cmd/helm/pull.go:90
// --destination, cmd/helm/flags.go:55 --version and :58 --repo; with --repo
// no `helm repo add` and no repository cache), into a fresh directory
// because helm names the archive after the repository's URL (ci/images
// ChartArchiveName), then moves the one archive it left to out, the name
// labctl's index gives it. More or fewer than one archive fails the exec.
// labctl checks the archive's Chart.yaml against the pin when a stage
// reads the bundle (ci/images ChartArchives).
//
// The values go to the script as arguments, never into its text, so no
// quoting of a chart name or URL is needed.
func PullChart(c BundleChart, out string) []string {
	return []string{"sh", "-euc", pullChartScript, "pull-chart", c.Name, c.Repo, c.Version, out}
}

const pullChartScript = `name=$1 repo=$2 version=$3 out=$4
tmp=$(mktemp -d)
helm pull "$name" --repo "$repo" --version "$version" --destination "$tmp"
set -- "$tmp"/*.tgz
[ -e "$1" ] || set --
if [ "$#" -ne 1 ]; then
  echo "helm pull $name $version from $repo left $# archives, want one: $*" >&2
  exit 1
fi
mkdir -p "$(dirname "$out")"
mv "$1" "$out"
echo "chart $name $version from $repo: $out"`

// MissingCharts fails when a chart of the index has no archive among the
// entries of a directory of archives (the module's --charts), naming each
// missing archive and the `helm pull` that makes it.
func MissingCharts(charts []BundleChart, entries []string) error {
	var missing []string
	for _, c := range charts {
		if !slices.Contains(entries, c.File) {
			missing = append(missing, fmt.Sprintf("%s (helm pull %s --repo %s --version %s)", c.File, c.Name, c.Repo, c.Version))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("--charts lacks %d of the lab's %d chart archives: %s; "+
			"add them or leave --charts out to pull every chart from its repository",
			len(missing), len(charts), strings.Join(missing, "; "))
	}
	return nil
}
