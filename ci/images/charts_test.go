package images

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images/chartstest"
)

// fakePuller stands for `helm pull`: it writes an archive named after a
// repository URL (not after the chart) holding what serve says.
type fakePuller struct {
	t     *testing.T
	calls []string
	serve map[string][2]string // chart name → name, version in the archive
	err   error
}

func (p *fakePuller) PullChart(_ context.Context, name, repo, version, dest string) error {
	p.calls = append(p.calls, strings.Join([]string{name, repo, version}, " "))
	if p.err != nil {
		return p.err
	}
	got, ok := p.serve[name]
	if !ok {
		got = [2]string{name, version}
	}
	writeChartArchive(p.t, filepath.Join(dest, "release-asset-"+name+".tgz"), got[0], got[1], name == "kamaji")
	return nil
}

var labCharts = []Chart{
	{Name: "cert-manager", Repo: "https://charts.jetstack.io", Version: "v1.18.3"},
	{Name: "kamaji", Repo: "https://clastix.github.io/charts", Version: "0.0.0+latest"},
	{Name: "hami", Repo: "https://project-hami.github.io/HAMi/", Version: "2.10.0"},
}

func TestSaveChartsWritesEachPinnedChartUnderItsName(t *testing.T) {
	dir := t.TempDir()
	p := &fakePuller{t: t}
	entries, err := SaveCharts(context.Background(), p, labCharts, dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.calls) != 3 || p.calls[1] != "kamaji https://clastix.github.io/charts 0.0.0+latest" {
		t.Errorf("pulls = %q", p.calls)
	}
	files, _ := os.ReadDir(filepath.Join(dir, ChartsDir))
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	if strings.Join(names, " ") != "cert-manager-v1.18.3.tgz hami-2.10.0.tgz kamaji-0.0.0+latest.tgz" {
		t.Errorf("charts dir holds %v (temporary pull dirs must be gone)", names)
	}
	idx := Index{Charts: entries}
	archives, missing, err := ChartArchives(dir, idx, labCharts)
	if err != nil || len(missing) != 0 || len(archives) != 3 {
		t.Fatalf("ChartArchives = %v, %v, %v", archives, missing, err)
	}
	if a := archives["kamaji"]; !filepath.IsAbs(a) || filepath.Base(a) != "kamaji-0.0.0+latest.tgz" {
		t.Errorf("kamaji archive = %s, want an absolute path to the renamed archive", a)
	}
}

func TestSaveChartsRefusesAnotherChartOrVersion(t *testing.T) {
	for name, serve := range map[string][2]string{
		"old chart 1.0.0": {"kamaji", "1.0.0"},
		"another chart":   {"kamaji-crds", "0.0.0+latest"},
	} {
		p := &fakePuller{t: t, serve: map[string][2]string{"kamaji": serve}}
		_, err := SaveCharts(context.Background(), p, labCharts, t.TempDir(), slog.New(slog.DiscardHandler))
		if err == nil || !strings.Contains(err.Error(), "holds chart "+serve[0]+" "+serve[1]+", want kamaji 0.0.0+latest") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestSaveChartsNamesTheChartItCannotPull(t *testing.T) {
	p := &fakePuller{t: t, err: fmt.Errorf("looks like %q is not a valid chart repository", "https://charts.jetstack.io")}
	_, err := SaveCharts(context.Background(), p, labCharts, t.TempDir(), slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "chart cert-manager v1.18.3 from https://charts.jetstack.io") {
		t.Errorf("err = %v", err)
	}
}

func TestChartArchivesChecksTheBundleAgainstThePins(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ChartsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	writeChartArchive(t, filepath.Join(dir, ChartsDir, "kamaji-0.0.0+latest.tgz"), "kamaji", "0.0.0+latest", true)
	idx := Index{Charts: []ChartEntry{{Chart: labCharts[1], File: "kamaji-0.0.0+latest.tgz"}}}
	archives, missing, err := ChartArchives(dir, idx, labCharts)
	if err != nil {
		t.Fatal(err)
	}
	if len(archives) != 1 || strings.Join(missing, ", ") != "cert-manager v1.18.3, hami 2.10.0" {
		t.Errorf("archives %v, missing %v: want kamaji's archive and the other two missing", archives, missing)
	}
	// The lab moved on: the bundle's chart is not the pinned one.
	pinned := append([]Chart(nil), labCharts...)
	pinned[1].Version = "0.0.1"
	if _, _, err := ChartArchives(dir, idx, pinned); err == nil ||
		!strings.Contains(err.Error(), "holds chart kamaji 0.0.0+latest, the lab pins 0.0.1") {
		t.Errorf("another pinned version: err = %v", err)
	}
	// The index says kamaji, the archive holds something else.
	writeChartArchive(t, filepath.Join(dir, ChartsDir, "kamaji-0.0.0+latest.tgz"), "kamaji", "1.0.0", false)
	if _, _, err := ChartArchives(dir, idx, labCharts); err == nil || !strings.Contains(err.Error(), "holds chart kamaji 1.0.0") {
		t.Errorf("archive at another version than its index entry: err = %v", err)
	}
}

func TestReadIndexRejectsAChartOutsideTheBundle(t *testing.T) {
	dir := t.TempDir()
	idx := Index{Images: []Entry{{Ref: "a:1", File: "a.tar"}}, Charts: []ChartEntry{{Chart: labCharts[0], File: "../x.tgz"}}}
	if err := WriteIndex(dir, idx); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadIndex(dir); err == nil || !strings.Contains(err.Error(), "chart 0") {
		t.Errorf("err = %v", err)
	}
}

// writeChartArchive writes a chart archive of name at version with a
// values.yaml; with sub, the kamaji-etcd subchart's Chart.yaml comes first,
// so a reader that takes any Chart.yaml is caught.
func writeChartArchive(t *testing.T, path, name, version string, sub bool) {
	t.Helper()
	var files []chartstest.File
	if sub {
		files = append(files, chartstest.KamajiEtcd(name, "0.17.0", "3.6.12", chartstest.KamajiEtcdValues)...)
	}
	files = append(files, chartstest.Chart(name, version), chartstest.File{Path: name + "/values.yaml", Data: "image: {}\n"})
	chartstest.Write(t, path, files...)
}
