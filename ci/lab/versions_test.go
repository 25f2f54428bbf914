package lab

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKindModuleVersionMatchesGoMod keeps KindModuleVersion (shown by
// `labctl plan`, used in error messages) equal to go.mod's sigs.k8s.io/kind.
func TestKindModuleVersionMatchesGoMod(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(s.Text()), "require "))
		if len(fields) >= 2 && fields[0] == "sigs.k8s.io/kind" {
			if fields[1] != KindModuleVersion {
				t.Fatalf("go.mod has sigs.k8s.io/kind %s, lab.KindModuleVersion is %s: update versions.go", fields[1], KindModuleVersion)
			}
			return
		}
	}
	t.Fatal("sigs.k8s.io/kind not found in go.mod")
}

func TestSupportedKubernetesHaveWorkerImagesKamajiAccepts(t *testing.T) {
	vs := SupportedKubernetes()
	if len(vs) == 0 {
		t.Fatal("no supported versions")
	}
	for _, v := range vs {
		img := WorkerImages[v]
		if !strings.HasPrefix(img, "kindest/node:"+v+"@sha256:") {
			t.Errorf("%s: worker image %q is not kindest/node:%s pinned by digest", v, img, v)
		}
		if m := minorOf(v); m < 0 || m > KamajiMaxMinor {
			t.Errorf("%s: minor %d not accepted by Kamaji (max 1.%d)", v, m, KamajiMaxMinor)
		}
	}
	for i := 1; i < len(vs); i++ {
		if minorOf(vs[i-1]) > minorOf(vs[i]) {
			t.Errorf("SupportedKubernetes not sorted: %v", vs)
		}
	}
	d := DefaultVersions()
	if _, ok := WorkerImages[d.Kubernetes]; !ok {
		t.Errorf("default tenant version %s has no worker image", d.Kubernetes)
	}
	if !strings.HasPrefix(d.KindNodeImage, "kindest/node:") {
		t.Errorf("kind node image %q", d.KindNodeImage)
	}
}

func TestVersionOverridesKeepOtherDefaults(t *testing.T) {
	l, err := Parse([]byte("versions: {kubernetes: v1.35.8, hamiImage: v2.10.1}\ntenants:\n  - name: a\n" + okWorker))
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultVersions()
	if l.Versions.Kubernetes != "v1.35.8" || l.Versions.HAMiImage != "v2.10.1" {
		t.Errorf("overrides lost: %+v", l.Versions)
	}
	if l.Versions.KamajiImage != d.KamajiImage || l.Versions.Konnectivity != d.Konnectivity || l.Versions.KindNodeImage != d.KindNodeImage {
		t.Errorf("defaults lost: %+v", l.Versions)
	}
	if l.Versions.WorkerImage() != WorkerImages["v1.35.8"] || l.Versions.KubeSchedulerTag() != "v1.35.8" {
		t.Errorf("derived images do not follow the tenant version: %s %s", l.Versions.WorkerImage(), l.Versions.KubeSchedulerTag())
	}
}
