package chartstest

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The archive holds the files in the order given, with their contents.
func TestWriteKeepsOrderAndContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.tgz")
	files := []File{{"c/charts/sub/Chart.yaml", "name: sub\n"}, Chart("c", "1.2.3"), {"c/values.yaml", "image: {}\n"}}
	Write(t, path, files...)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var got []File
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, File{h.Name, string(b)})
	}
	if len(got) != len(files) {
		t.Fatalf("archive holds %v, want %v", got, files)
	}
	for i := range files {
		if got[i] != files[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], files[i])
		}
	}
	if want := "apiVersion: v2\nname: c\nversion: 1.2.3\n"; files[1].Data != want {
		t.Errorf("Chart = %q, want %q", files[1].Data, want)
	}
}
