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
)

// findBrowser returns a headless-capable Chromium, or "" when none is
// installed (Debian package: chromium).
func findBrowser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestHTMLRendersInBrowser renders report.html in headless Chromium and
// checks the screenshot shows the page: right size, not blank, and the
// pod colours of the card pictures and the red of a failed timeline bar
// actually painted.
func TestHTMLRendersInBrowser(t *testing.T) {
	t.Parallel()
	browser := findBrowser()
	if browser == "" {
		t.Skip("no chromium on PATH: install the Debian package chromium to check report.html renders in a real browser")
	}
	dir := writeSample(t, sampleRun(t))
	shot := filepath.Join(t.TempDir(), "report.png")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	page, err := filepath.Abs(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--screenshot="+shot, "--window-size=1400,2000", "file://"+page)
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
	if b := img.Bounds(); b.Dx() != 1400 || b.Dy() != 2000 {
		t.Fatalf("screenshot is %dx%d, want 1400x2000", b.Dx(), b.Dy())
	}
	colours, painted := census(img)
	if len(colours) < 50 {
		t.Errorf("screenshot has %d distinct colours: the page looks blank", len(colours))
	}
	if painted < 0.05 {
		t.Errorf("only %.1f%% of the screenshot differs from the page background", painted*100)
	}
	// Colours from report.html.tmpl: the first three pod colours (the
	// A100's three slices) and the red of failures.
	for name, rgb := range map[string][3]uint8{"pod colour p0": {0x4e, 0x79, 0xa7}, "pod colour p1": {0xe8, 0x74, 0x1a},
		"pod colour p2": {0xd6, 0x45, 0x50}, "failure red (badge, timeline)": {0xcf, 0x22, 0x2e}} {
		if colours[rgb] < 200 {
			t.Errorf("%s #%02x%02x%02x covers %d pixels: the card pictures or timeline did not render", name, rgb[0], rgb[1], rgb[2], colours[rgb])
		}
	}
}

// census counts pixels per colour and the share that is not the body
// background (#f6f8fa).
func census(img image.Image) (map[[3]uint8]int, float64) {
	colours := map[[3]uint8]int{}
	b := img.Bounds()
	other := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			c := [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}
			colours[c]++
			if c != [3]uint8{0xf6, 0xf8, 0xfa} {
				other++
			}
		}
	}
	return colours, float64(other) / float64(b.Dx()*b.Dy())
}
