package chartbuild

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestValuesPaths(t *testing.T) {
	v := Values{
		Set: []string{"image.tag=26.8.2-edge", "resources=null", "kamaji-etcd.image.tag=v3.6.12"},
		File: []byte("global:\n  imageTag: v2.10.0\nscheduler:\n  extender:\n    extraArgs: [\"--a\", \"--b\"]\n  kubeScheduler:\n" +
			"    image: {registry: r, tag: t}\ndevicePlugin:\n  enabled: false\nempty: {}\n"),
	}
	got, err := v.Paths()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"devicePlugin.enabled", "empty", "global.imageTag", "image.tag", "kamaji-etcd.image.tag", "resources",
		"scheduler.extender.extraArgs", "scheduler.kubeScheduler.image.registry", "scheduler.kubeScheduler.image.tag"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Paths =\n%v\nwant\n%v", got, want)
	}
	if _, err := (Values{Set: []string{"novalue"}}).Paths(); err == nil {
		t.Error("a --set without = was accepted")
	}
	args, err := Values{Set: []string{"a=1"}, File: []byte("b: 2\n"),
		PostRenderer: []string{"/bin/labctl", "hami-post-render", "--scheduler-config", "f"}}.args(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(args, " "); !strings.Contains(s, "--set a=1 --post-renderer /bin/labctl --post-renderer-args hami-post-render "+
		"--post-renderer-args --scheduler-config --post-renderer-args f") || !strings.HasPrefix(s, "--values ") {
		t.Errorf("Args = %s", s)
	}
}

func TestUnknownValues(t *testing.T) {
	c := &Chart{
		Values: map[string]any{
			"image":       map[string]any{"repository": "clastix/kamaji", "tag": nil},
			"resources":   map[string]any{"limits": map[string]any{"memory": "1Gi"}},
			"extraArgs":   []any{},
			"podLabels":   map[string]any{},
			"kamaji-etcd": map[string]any{"deploy": true},
		},
		Templates: "{{ .Values.telemetry.disabled }} {{ .Values.image.repository }}",
		Subcharts: map[string]*Chart{"kamaji-etcd": {
			Values:    map[string]any{"image": map[string]any{"repository": "quay.io/coreos/etcd", "tag": ""}},
			Templates: "{{ .Values.jobs.kubectl.tag }}",
		}},
	}
	got := UnknownValues(c, []string{
		"image.tag", "image.pullPolicy", "resources", "extraArgs", "podLabels.team", "telemetry.disabled",
		"kamaji-etcd.deploy", "kamaji-etcd.image.tag", "kamaji-etcd.jobs.kubectl.tag", "kamaji-etcd.image.pullPolicy",
	})
	want := []Unknown{
		{Path: "image.pullPolicy"},
		{Path: "telemetry.disabled", Read: true},
		{Path: "kamaji-etcd.jobs.kubectl.tag", Read: true},
		{Path: "kamaji-etcd.image.pullPolicy"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UnknownValues =\n%v\nwant\n%v", got, want)
	}
	if s := want[0].String(); !strings.Contains(s, "no template reads .Values.image.pullPolicy") {
		t.Errorf("String = %s", s)
	}
}

// ReadChart reads a helm package's layout: NAME/values.yaml, templates and
// NAME/charts/SUB/ expanded.
func TestReadChart(t *testing.T) {
	archive := filepath.Join(t.TempDir(), "kamaji-0.0.0+latest.tgz")
	writeTgz(t, archive, map[string]string{
		"kamaji/Chart.yaml":                                 "name: kamaji\nversion: 0.0.0+latest\n",
		"kamaji/values.yaml":                                "image:\n  tag: \"\"\n",
		"kamaji/templates/controller.yaml":                  "{{ .Values.image.tag }}",
		"kamaji/charts/kamaji-etcd/Chart.yaml":              "name: kamaji-etcd\nversion: 0.17.0\n",
		"kamaji/charts/kamaji-etcd/values.yaml":             "jobs:\n  kubectl:\n    tag: \"\"\n",
		"kamaji/charts/kamaji-etcd/templates/etcd_sts.yaml": "{{ .Values.jobs.kubectl.tag }}",
	})
	c, err := ReadChart(archive)
	if err != nil {
		t.Fatal(err)
	}
	sub := c.Subcharts["kamaji-etcd"]
	if sub == nil || !strings.Contains(c.Templates, ".Values.image.tag") || !strings.Contains(sub.Templates, "jobs.kubectl.tag") ||
		c.Values["image"] == nil {
		t.Fatalf("ReadChart = %+v", c)
	}
	if u := UnknownValues(c, []string{"image.tag", "kamaji-etcd.jobs.kubectl.tag"}); len(u) != 0 {
		t.Errorf("UnknownValues = %v", u)
	}
}

func writeTgz(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for n, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	f.Close()
}
