package labcmd

import (
	"strings"
	"testing"
)

// bundleJSON builds a --bundle-index output with the given images and charts
// JSON arrays.
func bundleJSON(images, charts string) string {
	return `{"images":` + images + `,"charts":` + charts + `}`
}

const (
	goodImages = `[{"ref":"kindest/node:v1.37.0@sha256:a1ed","file":"kindest_node_v1.37.0_a1ed.tar"},` +
		`{"ref":"clastix/kamaji:26.8.2-edge","file":"clastix_kamaji_26.8.2-edge.tar"}]`
	goodCharts = `[{"name":"cert-manager","repo":"https://charts.jetstack.io","version":"v1.18.3",` +
		`"file":"cert-manager-v1.18.3.tgz"},{"name":"kamaji","repo":"https://clastix.github.io/charts",` +
		`"version":"0.0.0+latest","file":"kamaji-0.0.0+latest.tgz"}]`
)

func TestParseBundleIndex(t *testing.T) {
	got, err := ParseBundleIndex(bundleJSON(goodImages, goodCharts))
	if err != nil || len(got.Images) != 2 || got.Images[1].Ref != "clastix/kamaji:26.8.2-edge" ||
		got.Images[0].File != "kindest_node_v1.37.0_a1ed.tar" {
		t.Fatalf("ParseBundleIndex = %+v, %v", got, err)
	}
	want := BundleChart{Name: "kamaji", Repo: "https://clastix.github.io/charts", Version: "0.0.0+latest", File: "kamaji-0.0.0+latest.tgz"}
	if len(got.Charts) != 2 || got.Charts[1] != want {
		t.Fatalf("charts = %+v, want the second to be %+v", got.Charts, want)
	}
	for name, bad := range map[string]string{
		"not json":         `Error: unknown flag`,
		"empty":            bundleJSON(`[]`, goodCharts),
		"no ref":           bundleJSON(`[{"file":"a.tar"}]`, goodCharts),
		"path":             bundleJSON(`[{"ref":"a:1","file":"../a.tar"}]`, goodCharts),
		"the index file":   bundleJSON(`[{"ref":"a:1","file":"index.json"}]`, goodCharts),
		"the charts dir":   bundleJSON(`[{"ref":"a:1","file":"charts"}]`, goodCharts),
		"duplicate file":   bundleJSON(`[{"ref":"a:1","file":"a.tar"},{"ref":"a:2","file":"a.tar"}]`, goodCharts),
		"no charts":        `{"images":` + goodImages + `}`,
		"empty charts":     bundleJSON(goodImages, `[]`),
		"chart no name":    bundleJSON(goodImages, `[{"repo":"https://r","version":"1","file":"x-1.tgz"}]`),
		"chart no version": bundleJSON(goodImages, `[{"name":"x","repo":"https://r","file":"x-1.tgz"}]`),
		"chart flag name":  bundleJSON(goodImages, `[{"name":"--devel","repo":"https://r","version":"1","file":"x-1.tgz"}]`),
		"chart oci repo":   bundleJSON(goodImages, `[{"name":"x","repo":"oci://r","version":"1","file":"x-1.tgz"}]`),
		"chart no repo":    bundleJSON(goodImages, `[{"name":"x","version":"1","file":"x-1.tgz"}]`),
		"chart path":       bundleJSON(goodImages, `[{"name":"x","repo":"https://r","version":"1","file":"../x-1.tgz"}]`),
		"chart not tgz":    bundleJSON(goodImages, `[{"name":"x","repo":"https://r","version":"1","file":"x-1.tar"}]`),
		"chart duplicate": bundleJSON(goodImages, `[{"name":"x","repo":"https://r","version":"1","file":"x-1.tgz"},`+
			`{"name":"y","repo":"https://r","version":"1","file":"x-1.tgz"}]`),
	} {
		if _, err := ParseBundleIndex(bad); err == nil {
			t.Errorf("%s: accepted %s", name, bad)
		}
	}
}

func TestUpPassesTheBundle(t *testing.T) {
	got := strings.Join(Up("hami"), " ")
	if !strings.Contains(got, " --images "+BundleDir+" ") {
		t.Errorf("Up = %q, want --images %s", got, BundleDir)
	}
	if got := strings.Join(BundleIndex(), " "); got != "labctl images -f /lab/lab.yaml --bundle-index" {
		t.Errorf("BundleIndex = %q", got)
	}
}

// The index labctl prints with the archives' digests must name what the
// module fetched, each image with both digests; it is then the bundle's
// index as printed.
func TestCheckRecorded(t *testing.T) {
	fetched, err := ParseBundleIndex(bundleJSON(goodImages, goodCharts))
	if err != nil {
		t.Fatal(err)
	}
	digests := `,"config":"sha256:c1","manifest":"sha256:m1"}`
	recorded := strings.ReplaceAll(goodImages, `.tar"}`, `.tar"`+digests)
	if err := CheckRecorded(fetched, bundleJSON(recorded, goodCharts)); err != nil {
		t.Errorf("CheckRecorded(%s) = %v", recorded, err)
	}
	if got := strings.Join(RecordBundleIndex(BundleDir), " "); got != "labctl images -f /lab/lab.yaml --bundle-index --archives "+BundleDir {
		t.Errorf("RecordBundleIndex = %q", got)
	}
	for name, bad := range map[string]string{
		"no digests":       bundleJSON(goodImages, goodCharts),
		"no manifest":      bundleJSON(strings.ReplaceAll(recorded, `,"manifest":"sha256:m1"`, ""), goodCharts),
		"another image":    bundleJSON(strings.Replace(recorded, "clastix/kamaji:26.8.2-edge", "clastix/kamaji:other", 1), goodCharts),
		"an image less":    bundleJSON(recorded[:strings.Index(recorded, `,{"ref":"clastix`)]+"]", goodCharts),
		"not an index":     `Error: unknown flag: --archives`,
		"charts forgotten": `{"images":` + recorded + `}`,
	} {
		if err := CheckRecorded(fetched, bad); err == nil {
			t.Errorf("%s: accepted %s", name, bad)
		}
	}
}
