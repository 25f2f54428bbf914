package images

import (
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// TestPinnedChartsFollowTheLabsVersions: the identities are the lab's pinned
// versions, in installation order, and a lab with other versions gets
// those (the bundle must hold what that lab installs).
func TestPinnedChartsFollowTheLabsVersions(t *testing.T) {
	l := lab.Default()
	d := l.Versions
	want := []Chart{
		{Name: "cert-manager", Repo: "https://charts.jetstack.io", Version: d.CertManager},
		{Name: "kamaji", Repo: "https://clastix.github.io/charts", Version: d.KamajiChart},
		{Name: "hami", Repo: "https://project-hami.github.io/HAMi/", Version: d.HAMiChart},
	}
	got := PinnedCharts(l)
	if len(got) != len(want) {
		t.Fatalf("PinnedCharts = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("PinnedCharts[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	l.Versions.HAMiChart = "2.9.0"
	if v := HAMiChart(l).Version; v != "2.9.0" {
		t.Errorf("HAMiChart(lab with hamiChart 2.9.0).Version = %s", v)
	}
}
