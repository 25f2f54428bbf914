package chartbuild

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// The seed lab's three charts map to the upstream tags they are made from,
// and are written under the names `rehearse run --charts` looks for.
func TestRecipesOfTheSeedLab(t *testing.T) {
	l := lab.Default()
	want := []struct {
		kind                 kind
		repo, ref, dir, file string
	}{
		{kindCertManager, "cert-manager/cert-manager", "v1.18.3", "deploy/charts/cert-manager", "cert-manager-v1.18.3.tgz"},
		{kindKamaji, "clastix/kamaji", "26.8.2-edge", "charts/kamaji", "kamaji-0.0.0+latest.tgz"},
		{kindHAMi, "Project-HAMi/HAMi", "v2.10.0", "charts/hami", "hami-2.10.0.tgz"},
	}
	pinned := images.PinnedCharts(l)
	if len(pinned) != len(want) {
		t.Fatalf("the lab pins %d charts, the test knows %d", len(pinned), len(want))
	}
	var rs []Recipe
	for i, c := range pinned {
		r, err := recipeFor(c, l.Versions)
		if err != nil {
			t.Fatal(err)
		}
		w := want[i]
		if r.Kind != w.kind || r.Repo != w.repo || r.Ref != w.ref || r.ChartDir != w.dir || len(r.Commit) != 40 {
			t.Errorf("%s: recipe %+v, want %+v", c.Name, r, w)
		}
		if got := images.ChartArchiveName(c); got != w.file {
			t.Errorf("%s: archive %s, want %s", c.Name, got, w.file)
		}
		rs = append(rs, r)
	}
	if got, w := repos(rs), []string{CertManagerRepo, KamajiRepo, KamajiEtcdRepo, HAMiRepo}; !reflect.DeepEqual(got, w) {
		t.Errorf("Repos = %v, want %v", got, w)
	}
}

func TestRecipeRefusals(t *testing.T) {
	v := lab.DefaultVersions()
	for _, tt := range []struct {
		c    images.Chart
		v    lab.Versions
		want string
	}{
		{images.Chart{Name: "kamaji", Version: "1.0.0"}, v, "only 0.0.0+latest"},
		{images.Chart{Name: "kamaji", Version: kamajiLatest}, lab.Versions{}, "no Kamaji image version"},
		{images.Chart{Name: "ingress-nginx", Version: "4.0.0"}, v, "no recipe"},
		{images.Chart{Name: "hami", Version: "2.11.0"}, v, "Project-HAMi/HAMi v2.11.0 has no pinned commit"},
	} {
		if _, err := recipeFor(tt.c, tt.v); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("recipeFor(%v): err %v, want %q", tt.c, err, tt.want)
		}
	}
}

func TestGitDirFlags(t *testing.T) {
	s, err := ParseGitDirs([]string{"clastix/kamaji=/m/kamaji", "Project-HAMi/HAMi=/m/hami"})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := s.dir("clastix/kamaji"); err != nil || d != "/m/kamaji" {
		t.Errorf("Dir = %q, %v", d, err)
	}
	if _, err := s.dir("clastix/kamaji-etcd"); err == nil || !strings.Contains(err.Error(), "--git-dir clastix/kamaji-etcd=DIR") {
		t.Errorf("Dir of a missing repository: %v", err)
	}
	if got := s.missing([]string{HAMiRepo, KamajiEtcdRepo, CertManagerRepo}); !reflect.DeepEqual(got,
		[]string{CertManagerRepo, KamajiEtcdRepo}) {
		t.Errorf("Missing = %v", got)
	}
	for _, bad := range []string{"kamaji=/x", "clastix/kamaji", "clastix/kamaji=", "a/b/c=/x"} {
		if _, err := ParseGitDirs([]string{bad}); err == nil {
			t.Errorf("ParseGitDirs(%q) accepted", bad)
		}
	}
	o := Options{Charts: images.PinnedCharts(lab.Default()), Versions: lab.DefaultVersions(), Snapshots: s}
	if _, err := o.Recipes(); err == nil || !strings.Contains(err.Error(), "cert-manager/cert-manager, clastix/kamaji-etcd") {
		t.Errorf("Recipes without all git directories: %v", err)
	}
}
