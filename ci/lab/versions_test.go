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
		if m := minorOf(v); m < 0 || m > kamajiMaxMinor {
			t.Errorf("%s: minor %d not accepted by Kamaji (max 1.%d)", v, m, kamajiMaxMinor)
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

func TestMinorOfAndOrder(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"v1.36.4", 36},
		{"1.35.0", 35},
		{"v1.37.0-rc.1", 37},
		{"v2.0.0", -1},
		{"v1.36", -1}, // not a semantic version: no patch
		{"latest", -1},
	} {
		if got := minorOf(tc.in); got != tc.want {
			t.Errorf("minorOf(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	// By precedence, not spelling: 1.9 before 1.10, a patch before the next.
	for _, pair := range [][2]string{{"v1.9.0", "v1.10.0"}, {"v1.36.3", "v1.36.10"}, {"v1.37.0-rc.1", "v1.37.0"}} {
		if !semverLess(pair[0], pair[1]) || semverLess(pair[1], pair[0]) {
			t.Errorf("%s should sort before %s", pair[0], pair[1])
		}
	}
}
