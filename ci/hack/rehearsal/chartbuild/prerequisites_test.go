package chartbuild

import (
	"github.com/gpu-lab/gpu-lab/ci/images"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// issue 41: `rehearse charts` checks the programs it runs before helm's
// build (minutes) or any chart starts: Recipes, which labctl calls first,
// names each missing one and how to get it.
func TestRecipesCheckThePrograms(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	s := Snapshots{HAMiRepo: "/m/h", KamajiRepo: "/m/k", KamajiEtcdRepo: "/m/e", CertManagerRepo: "/m/c"}
	o := Options{Charts: images.PinnedCharts(lab.Default()), Versions: lab.DefaultVersions(), Snapshots: s}
	_, err := o.Recipes()
	for _, want := range []string{"git is not in $PATH", "apt-get install git", "go is not in $PATH"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Recipes without git and go: %v, want an error saying %q", err, want)
		}
	}
	o.Helm = "/usr/local/bin/helm" // a given helm: go is not needed
	if _, err := o.Recipes(); err == nil || strings.Contains(err.Error(), "go is not") {
		t.Errorf("Recipes with a helm given, without git: %v, want git and not go named", err)
	}
}
