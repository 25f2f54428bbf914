package labcmd

import (
	"strings"
	"testing"
)

func TestParseBundleIndex(t *testing.T) {
	good := `{"images":[{"ref":"kindest/node:v1.37.0@sha256:a1ed","file":"kindest_node_v1.37.0_a1ed.tar"},{"ref":"clastix/kamaji:26.8.2-edge","file":"clastix_kamaji_26.8.2-edge.tar"}]}`
	got, err := ParseBundleIndex(good)
	if err != nil || len(got) != 2 || got[1].Ref != "clastix/kamaji:26.8.2-edge" || got[0].File != "kindest_node_v1.37.0_a1ed.tar" {
		t.Fatalf("ParseBundleIndex = %+v, %v", got, err)
	}
	for name, bad := range map[string]string{
		"not json":       `Error: unknown flag`,
		"empty":          `{"images":[]}`,
		"no ref":         `{"images":[{"file":"a.tar"}]}`,
		"path":           `{"images":[{"ref":"a:1","file":"../a.tar"}]}`,
		"the index file": `{"images":[{"ref":"a:1","file":"index.json"}]}`,
		"duplicate file": `{"images":[{"ref":"a:1","file":"a.tar"},{"ref":"a:2","file":"a.tar"}]}`,
	} {
		if _, err := ParseBundleIndex(bad); err == nil {
			t.Errorf("%s: accepted %s", name, bad)
		}
	}
}

func TestUpPassesTheBundle(t *testing.T) {
	got := strings.Join(Up("hami"), " ")
	if !strings.HasSuffix(got, " --images "+BundleDir) {
		t.Errorf("Up = %q, want --images %s", got, BundleDir)
	}
	if got := strings.Join(BundleIndex(), " "); got != "labctl images -f /lab/lab.yaml --bundle-index" {
		t.Errorf("BundleIndex = %q", got)
	}
}
