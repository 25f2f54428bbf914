package labcmd

import (
	"encoding/json"
	"fmt"
	"path"
)

// BundleDir is where the runner sees the image bundle the module fetched:
// one archive per image plus labctl's index.json. Every `labctl up` gets
// --images BundleDir, so the stages load it into the DinD daemon (once per
// daemon: labctl records it in the state dir) and import each stage's
// images into the kind nodes before the stage.
const BundleDir = "/lab/images"

// BundleIndexFile is the bundle's index, as labctl writes and reads it
// (ci/images IndexFile).
const BundleIndexFile = "index.json"

// BundleIndex is the labctl command that prints the lab's bundle index: the
// images a bundle holds and the archive each goes to. labctl derives the
// list from the lab file; the module only fetches what it names.
func BundleIndex() []string {
	return []string{"labctl", "images", "-f", ConfigPath, "--bundle-index"}
}

// BundleEntry is one image of the index (ci/images Entry: "ref", "file";
// a test keeps the JSON keys in step).
type BundleEntry struct {
	Ref  string `json:"ref"`
	File string `json:"file"`
}

// ParseBundleIndex reads `labctl images --bundle-index` output and checks
// that each entry names an image and a plain file name (the module writes
// the files into the bundle directory by these names).
func ParseBundleIndex(out string) ([]BundleEntry, error) {
	var idx struct {
		Images []BundleEntry `json:"images"`
	}
	if err := json.Unmarshal([]byte(out), &idx); err != nil {
		return nil, fmt.Errorf("labctl images --bundle-index: %w", err)
	}
	if len(idx.Images) == 0 {
		return nil, fmt.Errorf("labctl images --bundle-index: no images")
	}
	seen := map[string]bool{}
	for i, e := range idx.Images {
		if e.Ref == "" || e.File == "" || path.Base(e.File) != e.File || e.File == BundleIndexFile || seen[e.File] {
			return nil, fmt.Errorf("labctl images --bundle-index: entry %d %+v: want a reference and a unique plain file name", i, e)
		}
		seen[e.File] = true
	}
	return idx.Images, nil
}
