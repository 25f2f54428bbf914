package labcmd

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// BundleDir is where the runner sees the bundle the module fetched: one
// archive per image, one per chart under BundleChartsDir, and labctl's
// index.json naming them. Every `labctl up` gets --images BundleDir, so the
// stages load the images into the DinD daemon (once per daemon: labctl
// records it in the state dir), import each stage's images into the kind
// nodes before the stage, and install each chart from its archive.
const BundleDir = "/lab/images"

// BundleIndexFile is the bundle's index, as labctl writes and reads it
// (ci/images IndexFile).
const BundleIndexFile = "index.json"

// BundleIndex is the labctl command that prints the lab's bundle index: the
// images and charts a bundle holds and the archive each goes to (charts are
// in it by default, labctl's --charts). labctl derives both lists from the
// lab file; the module only fetches what it names.
func BundleIndex() []string {
	return []string{"labctl", "images", "-f", ConfigPath, "--bundle-index"}
}

// RecordBundleIndex is the labctl command that prints the same index with
// each image's config and manifest digests, read from the archives in dir
// (labctl images --archives): what lets `labctl up --images` tie a
// digest-pinned image to its pin (ci/images bundle_pin.go).
func RecordBundleIndex(dir string) []string {
	return append(BundleIndex(), "--archives", dir)
}

// BundleEntry is one image of the index (ci/images Entry: "ref", "file",
// "config", "manifest"; a test keeps the JSON keys in step).
type BundleEntry struct {
	Ref      string `json:"ref"`
	File     string `json:"file"`
	Config   string `json:"config,omitempty"`
	Manifest string `json:"manifest,omitempty"`
}

// CheckRecorded checks that the index labctl printed with the archives'
// digests (RecordBundleIndex) names the very images and files of the
// index the module fetched, and records both digests of each: every
// tarball Container.AsTarball writes is an OCI layout, so each has a
// manifest. The module writes that output as the bundle's index.
func CheckRecorded(fetched Bundle, out string) error {
	got, err := ParseBundleIndex(out)
	if err != nil {
		return fmt.Errorf("labctl images --bundle-index --archives: %w", err)
	}
	if len(got.Images) != len(fetched.Images) || len(got.Charts) != len(fetched.Charts) {
		return fmt.Errorf("labctl images --bundle-index --archives names %d images and %d charts, "+
			"the module fetched %d and %d", len(got.Images), len(got.Charts), len(fetched.Images), len(fetched.Charts))
	}
	for i, e := range got.Images {
		f := fetched.Images[i]
		if e.Ref != f.Ref || e.File != f.File || e.Config == "" || e.Manifest == "" {
			return fmt.Errorf("labctl images --bundle-index --archives: entry %d %+v: "+
				"want %s in %s with its config and manifest digests", i, e, f.Ref, f.File)
		}
	}
	return nil
}

// Bundle is the index labctl printed, read: what the module fetches.
type Bundle struct {
	Images []BundleEntry `json:"images"`
	Charts []BundleChart `json:"charts"`
}

// ParseBundleIndex reads `labctl images --bundle-index` output and checks
// that each image entry names a reference and each chart entry a chart,
// its repository and version, and that every archive has a plain,
// unique file name (the module writes the files by these names, the
// charts under BundleChartsDir). An index without charts is refused: the
// module would silently go back to downloading every chart on every
// install.
func ParseBundleIndex(out string) (Bundle, error) {
	var b Bundle
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		return Bundle{}, fmt.Errorf("labctl images --bundle-index: %w", err)
	}
	if len(b.Images) == 0 {
		return Bundle{}, fmt.Errorf("labctl images --bundle-index: no images")
	}
	if len(b.Charts) == 0 {
		return Bundle{}, fmt.Errorf("labctl images --bundle-index: no charts (a labctl that predates charts in the index?)")
	}
	seen := map[string]bool{}
	for i, e := range b.Images {
		if e.Ref == "" || !plainFile(e.File) || e.File == BundleIndexFile || e.File == BundleChartsDir || seen[e.File] {
			return Bundle{}, fmt.Errorf("labctl images --bundle-index: entry %d %+v: want a reference and a unique plain file name", i, e)
		}
		seen[e.File] = true
	}
	seen = map[string]bool{}
	for i, c := range b.Charts {
		if err := c.check(); err != nil || seen[c.File] {
			return Bundle{}, fmt.Errorf("labctl images --bundle-index: chart %d %+v: want a name, an http(s) repository, "+
				"a version and a unique plain .tgz file name", i, c)
		}
		seen[c.File] = true
	}
	return b, nil
}

// plainFile reports whether name is a file name without a directory.
func plainFile(name string) bool {
	return name != "" && name != "." && name != ".." && path.Base(name) == name
}

// check refuses what the pull command must not get: empty fields, values
// helm would read as flags, a repository helm's --repo cannot use, a file
// name that leaves the charts directory.
func (c BundleChart) check() error {
	for _, v := range []string{c.Name, c.Version} {
		if v == "" || strings.HasPrefix(v, "-") {
			return fmt.Errorf("empty or flag-like name or version")
		}
	}
	if !strings.HasPrefix(c.Repo, "https://") && !strings.HasPrefix(c.Repo, "http://") {
		return fmt.Errorf("repository %q is not an http(s) URL", c.Repo)
	}
	if !plainFile(c.File) || !strings.HasSuffix(c.File, ".tgz") {
		return fmt.Errorf("file %q is not a plain .tgz name", c.File)
	}
	return nil
}
