package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// victim is a file outside the directories the rehearsal writes, which a
// symlink planted there points at.
func victim(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(p, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func checkVictim(t *testing.T, p string) {
	t.Helper()
	if b, err := os.ReadFile(p); err != nil || string(b) != "precious\n" {
		t.Errorf("root wrote through a planted symlink into %s: %q, %v", p, b, err)
	}
}

// Issue 38's try: symlinks planted in --reports at the names of the step
// logs and the report. Root replaces them with its own files and writes
// nothing through them.
func TestRunWritesNoReportThroughASymlink(t *testing.T) {
	w := &world{t: t}
	o, d := setup(t, w)
	v := victim(t)
	if err := os.MkdirAll(o.Reports, 0o755); err != nil {
		t.Fatal(err)
	}
	names := []string{"labctl-up.log", "labctl-test.log", "labctl-down.log", ReportFile}
	for _, n := range names {
		if err := os.Symlink(v, filepath.Join(o.Reports, n)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Run(context.Background(), o, d); err != nil {
		t.Fatal(err)
	}
	checkVictim(t, v)
	for _, n := range names {
		if fi, err := os.Lstat(filepath.Join(o.Reports, n)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v, %v; want the rehearsal's own regular file", n, modeOf(fi), err)
		}
	}
}

// Issue 38's try: a symlink planted at the predictable `<chart>.partial`
// name (and at the chart's own name) in the bundle: the chart is copied
// into the bundle and nothing is written through either.
func TestAttachChartsWritesNoChartThroughASymlink(t *testing.T) {
	w := &world{t: t}
	o, _ := setup(t, w)
	v := victim(t)
	dst := filepath.Join(o.Bundle, images.ChartsDir)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	want := images.PinnedCharts(lab.Default())
	name := images.ChartArchiveName(want[0])
	for _, n := range []string{name + ".partial", name} {
		if err := os.Symlink(v, filepath.Join(dst, n)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := attachCharts(o.Bundle, o.Charts, want); err != nil {
		t.Fatal(err)
	}
	checkVictim(t, v)
	if _, err := images.ReadChartArchive(filepath.Join(dst, name)); err != nil {
		t.Errorf("the chart in the bundle: %v", err)
	}
}

// Issue 38's try: labctl's state path is a file. The rehearsal refuses it
// before changing anything, and the file stays.
func TestRunRefusesAStatePathThatIsAFile(t *testing.T) {
	w := &world{t: t}
	o, d := setup(t, w)
	if err := os.MkdirAll(filepath.Dir(o.State), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(o.State, []byte("not a state directory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), o, d)
	if err == nil || !strings.Contains(err.Error(), o.State) || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("Run with a file as the state directory = %v, want a refusal naming %s", err, o.State)
	}
	if b, err := os.ReadFile(o.State); err != nil || string(b) != "not a state directory\n" {
		t.Errorf("the file at the state path: %q, %v", b, err)
	}
	if len(w.events) != 0 {
		t.Errorf("the rehearsal went on: %q", w.events)
	}
	if n, _ := readInt(o.Limits[0].Path); n != 192530 {
		t.Errorf("a kernel limit was raised (%d) although the rehearsal refused", n)
	}
}

func modeOf(fi os.FileInfo) string {
	if fi == nil {
		return "none"
	}
	return fi.Mode().String()
}
