package chartbuild

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigTgz writes a chart archive holding Chart.yaml and files of the given
// sizes (spaces, which compress to almost nothing).
func bigTgz(t *testing.T, sizes ...int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.tgz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	chart := "name: big\nversion: 1.0.0\n"
	tw.WriteHeader(&tar.Header{Name: "big/Chart.yaml", Mode: 0o644, Size: int64(len(chart)), Typeflag: tar.TypeReg})
	tw.Write([]byte(chart))
	block := bytes.Repeat([]byte(" "), 1<<20)
	for i, size := range sizes {
		if err := tw.WriteHeader(&tar.Header{Name: filepath.Join("big/templates", strings.Repeat("x", i+1)+".yaml"), Mode: 0o644, Size: size,
			Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		for left := size; left > 0; left -= int64(len(block)) {
			tw.Write(block[:min(left, int64(len(block)))])
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// issue 38: a chart archive is read up to a total, not only per file, and
// a file over the per-file cap is refused rather than cut short (caps of
// 1 and 3 MiB here, to keep the test fast).
func TestReadChartCapsWhatItReads(t *testing.T) {
	l := limits{file: 1 << 20, total: 3 << 20}
	tests := []struct {
		name  string
		sizes []int64
		want  string
	}{
		{"within the caps", []int64{1 << 20, 1 << 20, 1<<20 - 100}, ""},
		{"one file over the per-file cap", []int64{1<<20 + 1}, "larger than 1 MiB"},
		{"files each within, together over the total", []int64{1 << 20, 1 << 20, 1 << 20, 1 << 20}, "more than 3 MiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readChart(bigTgz(t, tc.sizes...), l)
			if tc.want == "" && err != nil {
				t.Fatal(err)
			}
			if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("ReadChart: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
