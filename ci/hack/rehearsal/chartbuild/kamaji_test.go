package chartbuild

import (
	"strings"
	"testing"
	"time"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// kamaji-etcd's tags as its repository has them (clastix/kamaji-etcd,
// recorded 2026-12-02: tag, charts/kamaji-etcd/Chart.yaml version at the
// tag, the tag's commit time). v0.14.1 tags a fix without a chart bump.
var recordedEtcdReleases = []EtcdRelease{
	{"v0.13.0", "0.13.0", at("2025-09-10T15:08:03+02:00")},
	{"v0.14.0", "0.14.0", at("2025-10-05T16:05:37+02:00")},
	{"v0.14.1", "0.14.0", at("2026-01-08T17:47:39+01:00")},
	{"v0.15.0", "0.15.0", at("2026-03-03T18:42:37+01:00")},
	{"v0.16.0", "0.16.0", at("2026-07-06T08:46:41+02:00")},
	{"v0.17.0", "0.17.0", at("2026-07-11T19:25:21+02:00")},
}

// kamaji 26.8.2-edge (ddbabd8) was committed 2026-08-03T08:32:56+02:00;
// its Chart.yaml asks for kamaji-etcd ">=0.15.0".
func TestSelectKamajiEtcd(t *testing.T) {
	edge := at("2026-08-03T08:32:56+02:00")
	for _, tt := range []struct {
		name, constraint string
		releases         []EtcdRelease
		cutoff           time.Time
		want, err        string
	}{
		{"26.8.2-edge", ">=0.15.0", recordedEtcdReleases, edge, "v0.17.0", ""},
		{"before 0.17.0 was tagged", ">=0.15.0", recordedEtcdReleases, at("2026-07-10T00:00:00Z"), "v0.16.0", ""},
		{"the committed Chart.lock's day", ">=0.15.0", recordedEtcdReleases, at("2026-05-25T10:39:07+02:00"), "v0.15.0", ""},
		{"nothing new enough yet", ">=0.15.0", recordedEtcdReleases, at("2026-01-01T00:00:00Z"), "", "no kamaji-etcd release >=0.15.0"},
		{"spaces", " >= 0.14.0", recordedEtcdReleases[:3], edge, "v0.14.0", ""},
		{"a pre-release is not picked", ">=0.15.0", append([]EtcdRelease{{"v0.18.0-rc.1", "0.18.0-rc.1", edge.Add(-time.Hour)}},
			recordedEtcdReleases...), edge, "v0.17.0", ""},
		{"a range helm would read otherwise", "^0.15.0", recordedEtcdReleases, edge, "", "only >=X.Y.Z"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := selectKamajiEtcd(tt.constraint, tt.releases, tt.cutoff)
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if got.Tag != tt.want {
				t.Errorf("selected %+v, want %s", got, tt.want)
			}
		})
	}
}

func TestKamajiEtcdDependency(t *testing.T) {
	// The shape of kamaji 26.8.2-edge charts/kamaji/Chart.yaml:21-25.
	chart := []byte("name: kamaji\nversion: 0.0.0+latest\ndependencies:\n- name: kamaji-etcd\n" +
		"  repository: https://clastix.github.io/charts\n  version: \">=0.15.0\"\n  condition: kamaji-etcd.deploy\n")
	d, err := kamajiEtcdDependency(chart)
	if err != nil {
		t.Fatal(err)
	}
	if d.Repository != "https://clastix.github.io/charts" || d.Version != ">=0.15.0" {
		t.Errorf("dependency %+v", d)
	}
	if _, err := kamajiEtcdDependency([]byte("name: kamaji\n")); err == nil {
		t.Error("a chart without kamaji-etcd was accepted")
	}
	want := "apiVersion: \"\"\ngenerated: \"0001-01-01T00:00:00Z\"\nrepositories:\n- name: clastix\n  url: https://clastix.github.io/charts\n"
	if got := string(repositoriesYAML("clastix", d.Repository)); got != want {
		t.Errorf("RepositoriesYAML =\n%s\nwant\n%s", got, want)
	}
}
