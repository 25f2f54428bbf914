package run

import (
	"errors"
	"os"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

func recordedLabels(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseLabels(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Which images the rehearsal's build made, from the labels Docker prints
// for a built image and for one without labels (testdata/README.md).
func TestImageSources(t *testing.T) {
	built := recordedLabels(t, "testdata/labels-built.txt")
	none := recordedLabels(t, "testdata/labels-none.txt")
	entries := []images.Entry{
		{Ref: "registry.k8s.io/etcd:3.7.0-0", File: "e.tar", ID: "sha256:a61b8331a484"},
		{Ref: "kindest/node:v1.37.0@sha256:abc", File: "n.tar"},
		{Ref: "docker.io/library/other:1", File: "o.tar", ID: "sha256:0000"},
	}
	var asked []string
	got := imageSources(entries, func(name string) (map[string]string, error) {
		asked = append(asked, name)
		switch name {
		case "sha256:a61b8331a484":
			return built, nil
		case "sha256:0000":
			return none, nil
		}
		return nil, errors.New("no such image")
	})
	if want := []string{"sha256:a61b8331a484", "kindest/node:v1.37.0@sha256:abc", "sha256:0000"}; len(asked) != 3 ||
		asked[0] != want[0] || asked[1] != want[1] || asked[2] != want[2] {
		t.Errorf("looked up %q, want %q (by ID when the index has one)", asked, want)
	}
	if !got[0].Built || got[0].Source != "go.etcd.io/etcd server, etcdctl, etcdutl @v3.7.0" {
		t.Errorf("built image: %+v", got[0])
	}
	if got[1].Built || got[1].Err == "" {
		t.Errorf("image that could not be inspected: %+v", got[1])
	}
	if got[2].Built || got[2].Err != "" {
		t.Errorf("image without labels: %+v", got[2])
	}
}
