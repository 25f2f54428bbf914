package images

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images/chartstest"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// setImages reads the kamaji-etcd images back out of the --set values the
// Kamaji release gets: what the subchart's templates print once they are
// set (kamaji-etcd v0.17.0 templates/_helpers.tpl:34-36 repository:tag;
// etcd_job_preinstall_2.yaml:26 and :54 image:tag).
func setImages(t *testing.T) []string {
	t.Helper()
	set := map[string]string{}
	for _, s := range KamajiEtcdSet() {
		k, v, ok := strings.Cut(s, "=")
		if !ok || !strings.HasPrefix(k, "kamaji-etcd.") {
			t.Fatalf("--set %q is not a kamaji-etcd value", s)
		}
		set[strings.TrimPrefix(k, "kamaji-etcd.")] = v
	}
	var out []string
	for _, p := range [][2]string{{"image.repository", "image.tag"}, {"jobs.kubectl.image", "jobs.kubectl.tag"},
		{"jobs.etcd.image", "jobs.etcd.tag"}} {
		if set[p[0]] == "" || set[p[1]] == "" {
			t.Fatalf("--set lacks %s or %s: %v", p[0], p[1], set)
		}
		out = append(out, set[p[0]]+":"+set[p[1]])
	}
	for _, k := range []string{"image.pullPolicy", "jobs.etcd.pullPolicy"} {
		if set[k] != "IfNotPresent" {
			t.Errorf("--set %s = %q, want IfNotPresent (a bundle serves it)", k, set[k])
		}
	}
	return out
}

// TestListHoldsWhatTheKamajiReleaseSets: the etcd images the list (and so
// a bundle) names are exactly those the --set values make kamaji-etcd ask
// for, whatever the management node's version: the kubectl tag no longer
// follows it (kind v0.33.0's v1.37.0 node would make it clastix/kubectl:v1.37).
func TestListHoldsWhatTheKamajiReleaseSets(t *testing.T) {
	want := setImages(t)
	for _, node := range []string{lab.Default().Versions.KindNodeImage, "kindest/node:v1.36.4"} {
		l := lab.Default()
		l.Versions.KindNodeImage = node
		list, err := List(l)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, i := range list {
			if strings.Contains(i.Ref, "/etcd:") || strings.Contains(i.Ref, "clastix/kubectl") {
				got = append(got, i.Ref)
				if !i.Bundled() || i.Stage != StageKamaji || i.Place != Management || i.PullPolicy != "IfNotPresent" {
					t.Errorf("%s: %+v, want a bundled IfNotPresent image of the kamaji stage on the management node", node, i)
				}
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: list names %q, the Kamaji release sets %q", node, got, want)
		}
	}
	list, _ := List(lab.Default())
	for _, i := range list {
		if i.Ref == etcdKubectl.Ref() && !strings.Contains(i.Source, "defn/other") {
			t.Errorf("the kubectl image's source does not say where its tag is shown to exist: %s", i.Source)
		}
	}
}

// kamajiArchive writes a Kamaji chart archive carrying kamaji-etcd at
// version with values (nil files: no subchart).
func kamajiArchive(t *testing.T, path string, sub []chartstest.File) {
	t.Helper()
	chartstest.Write(t, path, append([]chartstest.File{chartstest.Chart("kamaji", "0.0.0+latest")}, sub...)...)
}

// TestKamajiEtcdInTheChartArchive: a Kamaji chart carrying another
// kamaji-etcd than v0.17.0 — other defaults, same value names — is saved
// and accepted as a bundle's chart, since the lab's --set values decide its
// images; one whose subchart lost a value the lab sets, or that carries
// none, is refused at save and at the bundle check, naming what is missing.
func TestKamajiEtcdInTheChartArchive(t *testing.T) {
	// A later kamaji-etcd with other defaults (a test's own values).
	newer := strings.NewReplacer("tag: v3.5.6", "tag: v3.5.99").Replace(chartstest.KamajiEtcdValues)
	// The same with jobs.kubectl.tag renamed.
	renamed := strings.Replace(chartstest.KamajiEtcdValues, "    image: clastix/kubectl\n    tag: \"\"\n",
		"    image: clastix/kubectl\n    version: \"\"\n", 1)
	if renamed == chartstest.KamajiEtcdValues || newer == chartstest.KamajiEtcdValues {
		t.Fatal("the test's values were not changed")
	}
	tests := []struct {
		name    string
		sub     []chartstest.File
		version string // of the subchart, when accepted
		err     string
	}{
		{"kamaji-etcd 0.17.0", chartstest.KamajiEtcd("kamaji", "0.17.0", "3.6.12", chartstest.KamajiEtcdValues), "0.17.0", ""},
		{"kamaji-etcd 0.18.0, other defaults", chartstest.KamajiEtcd("kamaji", "0.18.0", "3.6.99", newer), "0.18.0", ""},
		{"jobs.kubectl.tag renamed", chartstest.KamajiEtcd("kamaji", "0.19.0", "3.6.99", renamed), "",
			"kamaji-etcd 0.19.0 has no value jobs.kubectl.tag"},
		{"no values.yaml", chartstest.KamajiEtcd("kamaji", "0.19.0", "3.6.99", "")[:1], "", "has no value image.repository, image.tag"},
		{"no kamaji-etcd", nil, "", "no kamaji/charts/kamaji-etcd/Chart.yaml"},
		{"kamaji-etcd under another chart's directory",
			chartstest.KamajiEtcd("other", "0.17.0", "3.6.12", chartstest.KamajiEtcdValues), "", "no kamaji/charts/kamaji-etcd/Chart.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			served := filepath.Join(t.TempDir(), "served.tgz")
			kamajiArchive(t, served, tt.sub)
			c, err := CheckKamajiEtcd(served)
			if tt.err == "" {
				if err != nil || c.Version != tt.version {
					t.Fatalf("CheckKamajiEtcd = %+v, %v; want kamaji-etcd %s", c, err, tt.version)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("CheckKamajiEtcd: err = %v, want %q", err, tt.err)
			}
			// labctl images save.
			dir := t.TempDir()
			p := &copyPuller{archive: served}
			var log strings.Builder
			entries, err := SaveCharts(context.Background(), p, labCharts[1:2], dir, slog.New(slog.NewTextHandler(&log, nil)))
			if tt.err == "" && !strings.Contains(log.String(), "kamaji-etcd="+tt.version) {
				t.Errorf("saving the chart does not say which kamaji-etcd it carries:\n%s", log.String())
			}
			if (err == nil) != (tt.err == "") ||
				(err != nil && (!strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "chart kamaji 0.0.0+latest"))) {
				t.Fatalf("SaveCharts: err = %v, want %q", err, tt.err)
			}
			// up --images: the bundle check.
			if err != nil {
				entries = []ChartEntry{{Chart: labCharts[1], File: ChartArchiveName(labCharts[1])}}
				os.MkdirAll(filepath.Join(dir, ChartsDir), 0o755)
				b, _ := os.ReadFile(served)
				if err := os.WriteFile(filepath.Join(dir, ChartsDir, entries[0].File), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			archives, _, err := ChartArchives(dir, Index{Charts: entries}, labCharts[1:2])
			if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("ChartArchives: err = %v, want %q", err, tt.err)
			}
			if err == nil && archives["kamaji"] == "" {
				t.Errorf("ChartArchives found no kamaji archive: %v", archives)
			}
		})
	}
}

// copyPuller serves one archive for whatever chart is asked for.
type copyPuller struct{ archive string }

func (p *copyPuller) PullChart(_ context.Context, _, _, _, dest string) error {
	b, err := os.ReadFile(p.archive)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dest, "from-repo.tgz"), b, 0o644)
}
