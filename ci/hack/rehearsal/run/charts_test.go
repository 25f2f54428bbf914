package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/images/chartstest"
)

// Charts are put into the bundle only when each archive holds the chart
// and version the lab pins; a bundle without them is refused before
// anything starts (no chart repository is reachable in the namespace).
func TestAttachCharts(t *testing.T) {
	want := []images.Chart{
		{Name: "cert-manager", Repo: "https://charts.jetstack.io", Version: "v1.18.3"},
		{Name: "hami", Repo: "https://project-hami.github.io/HAMi/", Version: "2.10.0"},
	}
	for _, tc := range []struct {
		name    string
		archive map[string]chartstest.File // file name in the charts dir → its Chart.yaml
		wantErr string
	}{
		{"pinned", map[string]chartstest.File{
			"cert-manager-v1.18.3.tgz": chartstest.Chart("cert-manager", "v1.18.3"),
			"hami-2.10.0.tgz":          chartstest.Chart("hami", "2.10.0"),
		}, ""},
		{"another version inside", map[string]chartstest.File{
			"cert-manager-v1.18.3.tgz": chartstest.Chart("cert-manager", "v1.18.2"),
			"hami-2.10.0.tgz":          chartstest.Chart("hami", "2.10.0"),
		}, "holds cert-manager v1.18.2, the lab pins cert-manager v1.18.3"},
		{"missing", map[string]chartstest.File{
			"cert-manager-v1.18.3.tgz": chartstest.Chart("cert-manager", "v1.18.3"),
		}, "chart hami 2.10.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bundle, charts := filepath.Join(dir, "bundle"), filepath.Join(dir, "charts")
			for _, d := range []string{bundle, charts} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			old := images.Index{
				Images: []images.Entry{{Ref: "kindest/node:v1.37.0", File: "n.tar"}},
				Charts: []images.ChartEntry{{Chart: images.Chart{Name: "hami", Version: "2.9.0"}, File: "hami-2.9.0.tgz"}},
			}
			if err := images.WriteIndex(bundle, old); err != nil {
				t.Fatal(err)
			}
			if err := checkBundleCharts(bundle, old, want); err == nil {
				t.Error("CheckBundleCharts accepted a bundle holding another hami and no cert-manager")
			}
			for name, f := range tc.archive {
				chartstest.Write(t, filepath.Join(charts, name), f)
			}
			idx, err := attachCharts(bundle, charts, want)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("AttachCharts error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(idx.Images) != 1 || len(idx.Charts) != 2 || idx.Charts[0].Name != "hami" || idx.Charts[0].Version != "2.10.0" {
				t.Errorf("index after attaching: %+v (want the image kept, hami replaced, cert-manager added)", idx)
			}
			reread, err := images.ReadIndex(bundle)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkBundleCharts(bundle, reread, want); err != nil {
				t.Errorf("the bundle with the charts attached is refused: %v", err)
			}
		})
	}
}
