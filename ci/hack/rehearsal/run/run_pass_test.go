package run

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// A rehearsal whose lab comes up and passes: the daemon starts, labctl up
// then test run, the report says what ran and what it measured, then the
// lab goes down by labctl, the daemon stops and what the rehearsal made is
// removed.
func TestRunPasses(t *testing.T) {
	w := &world{t: t}
	o, d := setup(t, w)
	rep, err := Run(context.Background(), o, d)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := []string{"daemon start", "labctl up", "labctl test", "labctl down", "daemon stop"}
	if !slices.Equal(w.events, want) {
		t.Errorf("events %q, want %q", w.events, want)
	}
	for _, f := range []string{ReportFile, stagesFile, "results.json", "labctl-up.log", "labctl-test.log", "labctl-down.log"} {
		if _, err := os.Stat(filepath.Join(o.Reports, f)); err != nil {
			t.Errorf("reports lack %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(o.Reports, daemonLogsDir)); err == nil {
		t.Errorf("the daemon's logs were kept although nothing failed")
	}
	for _, l := range []struct {
		path string
		want int64
	}{{o.Limits[0].Path, 192530}, {o.Limits[1].Path, 1024}} {
		if n, err := readInt(l.path); err != nil || n != l.want {
			t.Errorf("%s = %d (%v) after the run, want %d restored", l.path, n, err, l.want)
		}
	}
	for _, gone := range []string{o.State, filepath.Dir(o.State), o.LibModulesDir} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s left behind (%v)", gone, err)
		}
	}
	idx, err := images.ReadIndex(o.Bundle)
	if err != nil || len(idx.Charts) != 3 || len(idx.Images) != 1 {
		t.Errorf("bundle index after the charts were attached: %+v, %v", idx, err)
	}
	md, err := os.ReadFile(filepath.Join(o.Reports, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if string(md) != rep.markdown() {
		t.Error("rehearsal.md is not the returned report")
	}
	for _, w := range []string{
		"# Rehearsal of the real lab, 2026-12-02 15:00 UTC",
		"commit 2e22de3",
		"| kindest/node:v1.37.0 | 1111 | yes: source of sha256:1111 |",
		"1 of 1 images were built from source",
		"- hami 2.10.0 (hami-2.10.0.tgz)",
		"**private Docker daemon**",
		"| cluster | done | 1m1s |",
		"| kamaji | done | 1m35s |",
		"2 passed, 0 failed, 0 skipped in 42s",
		"containers' memory (the kernel's peak of the private daemon's cgroup parent, page cache included): 3.00 GiB",
		"- dockerd peak RSS (VmHWM): 200.0 MiB",
		"largest of 1 samples): 7.00 GiB",
		"- labctl down: done", "- stop the private daemon: done", "- remove /lib/modules: done", "- restore the kernel limits: done",
	} {
		if !strings.Contains(string(md), w) {
			t.Errorf("rehearsal.md lacks %q:\n%s", w, md)
		}
	}
	if strings.Contains(string(md), "did not finish") {
		t.Errorf("a passing rehearsal reports a failure:\n%s", md)
	}
}
