package charts

import (
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// TestPinnedFollowsTheLabsVersions: the identities are the lab's pinned
// versions, in installation order, and a lab with other versions gets
// those (the bundle must hold what that lab installs).
func TestPinnedFollowsTheLabsVersions(t *testing.T) {
	l := lab.Default()
	d := l.Versions
	want := []images.Chart{
		{Name: "cert-manager", Repo: "https://charts.jetstack.io", Version: d.CertManager},
		{Name: "kamaji", Repo: "https://clastix.github.io/charts", Version: d.KamajiChart},
		{Name: "hami", Repo: "https://project-hami.github.io/HAMi/", Version: d.HAMiChart},
	}
	got := Pinned(l)
	if len(got) != len(want) {
		t.Fatalf("Pinned = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Pinned[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	l.Versions.HAMiChart = "2.9.0"
	if v := HAMi(l).Version; v != "2.9.0" {
		t.Errorf("HAMi(lab with hamiChart 2.9.0).Version = %s", v)
	}
}
