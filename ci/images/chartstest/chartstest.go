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
