// Package chartstest writes Helm chart archives for the tests of code that
// reads them (images.SaveCharts and ChartArchives, the charts stage,
// labctl's images commands), laid out as `helm package` lays them out (helm
// v3.19.0 pkg/chartutil/save.go: a gzip tar of NAME/Chart.yaml, then the
// chart's other files, subcharts under NAME/charts/SUB/).
package chartstest

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"os"
	"testing"
)

// File is one file of an archive, by its path inside it.
type File struct{ Path, Data string }

// Chart is NAME/Chart.yaml of the chart at version.
func Chart(name, version string) File {
	return File{Path: name + "/Chart.yaml", Data: fmt.Sprintf("apiVersion: v2\nname: %s\nversion: %s\n", name, version)}
}

// KamajiEtcdValues is a kamaji-etcd values.yaml holding only the values
// whose names the lab relies on, under the key names of kamaji-etcd v0.17.0
// charts/kamaji-etcd/values.yaml:15-21 (image.repository, image.tag,
// image.pullPolicy) and :219-225 (jobs.kubectl.image, jobs.kubectl.tag,
// jobs.etcd.image, jobs.etcd.tag, jobs.etcd.pullPolicy), with that
// release's defaults. A test writes it as input.
const KamajiEtcdValues = `image:
  repository: quay.io/coreos/etcd
  tag: ""
  pullPolicy: IfNotPresent
jobs:
  kubectl:
    image: clastix/kubectl
    tag: ""
  etcd:
    image: quay.io/coreos/etcd
    tag: v3.5.6
    pullPolicy: IfNotPresent
`

// KamajiEtcd is the kamaji-etcd subchart at version (etcd appVersion) with
// values, as helm package writes a dependency inside its parent's archive:
// PARENT/charts/kamaji-etcd/ (helm v3.19.0 pkg/chartutil/save.go:229-234).
func KamajiEtcd(parent, version, appVersion, values string) []File {
	dir := parent + "/charts/kamaji-etcd/"
	return []File{
		{Path: dir + "Chart.yaml", Data: fmt.Sprintf("apiVersion: v2\nname: kamaji-etcd\nversion: %s\nappVersion: %q\n", version, appVersion)},
		{Path: dir + "values.yaml", Data: values},
	}
}

// Archive is a chart archive's files for chart name at version: its
// Chart.yaml, and for kamaji the kamaji-etcd v0.17.0 it carries (the lab
// checks the subchart's values, images.CheckKamajiEtcd).
func Archive(name, version string) []File {
	files := []File{Chart(name, version)}
	if name == "kamaji" {
		files = append(files, KamajiEtcd(name, "0.17.0", "3.6.12", KamajiEtcdValues)...)
	}
	return files
}

// Write writes files, in this order, as a chart archive at path; it ends
// the test on any error.
func Write(t testing.TB, path string, files ...File) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, file := range files {
		if err := tw.WriteHeader(&tar.Header{Name: file.Path, Mode: 0o644, Size: int64(len(file.Data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatalf("chart archive %s: %v", path, err)
		}
		if _, err := tw.Write([]byte(file.Data)); err != nil {
			t.Fatalf("chart archive %s: %v", path, err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatalf("chart archive %s: %v", path, err)
	}
	if err := gz.Close(); err != nil {
		t.Fatalf("chart archive %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("chart archive %s: %v", path, err)
	}
}
