package report

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// What a reader sees first of a tenant's cards, in a real browser: the
// three 20000 MB + 30% pods sharing the A100 (TC-05), not TC-16's single
// whole-card pod sampled later (it is in the folded other samples).
func TestBrowserShowsTheSharingMomentFirst(t *testing.T) {
	t.Parallel()
	browser := findBrowser()
	if browser == "" {
		t.Skip("no chromium on PATH: install the Debian package chromium to check report.html renders in a real browser")
	}
	t0 := time.Date(2026, 12, 2, 14, 45, 26, 0, time.UTC)
	a100 := func(holders ...results.Slice) results.Card {
		return results.Card{UUID: "GPU-2221470d", Type: "NVIDIA-A100-SXM4-80GB", MemoryMB: 81920, Cores: 100, Holders: holders}
	}
	run := &results.Run{Schema: results.SchemaVersion, Lab: "gpu-lab", Started: t0, Tenants: []results.TenantState{
		state("tenant-a", "TC-05: TC-03's three pods share GPU-2221470d", t0.Add(2*time.Second),
			a100(slice("tc03-1", 20000, 30), slice("tc03-2", 20000, 30), slice("tc03-3", 20000, 30))),
		state("tenant-a", "TC-16: a whole-card pod holds GPU-2221470d", t0.Add(3*time.Second), a100(slice("tc16-whole-1", 81920, 100))),
		state("tenant-a", "end of run", t0.Add(9*time.Second), a100()),
	}}
	dir := writeSample(t, run)
	img := screenshot(t, browser, filepath.Join(dir, HTMLFile), 1400, 1400)
	colours, _ := census(img)
	// Pod colours from report.html.tmpl, given in the order pods are first
	// sampled: p0–p2 the three TC-03 pods, p3 the whole-card pod.
	for name, rgb := range map[string][3]uint8{"tc03-1 (p0)": {0x4e, 0x79, 0xa7}, "tc03-2 (p1)": {0xe8, 0x74, 0x1a},
		"tc03-3 (p2)": {0xd6, 0x45, 0x50}} {
		if colours[rgb] < 2000 {
			t.Errorf("%s covers %d pixels: the sharing moment is not drawn first", name, colours[rgb])
		}
	}
	if n := colours[[3]uint8{0x3e, 0x9c, 0x95}]; n > 0 {
		t.Errorf("the whole-card pod's colour (p3) covers %d pixels: TC-16's picture is shown before the sharing moment", n)
	}
}

// screenshot renders page in headless Chromium at w×h.
func screenshot(t *testing.T, browser, page string, w, h int) image.Image {
	t.Helper()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "page.png")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--screenshot="+shot, "--window-size="+itoa(w)+","+itoa(h), "file://"+abs)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot written: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	return img
}
