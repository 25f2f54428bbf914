package images

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

func testLabs(t *testing.T) map[string]*lab.Lab {
	t.Helper()
	l3, err := lab.Load(filepath.Join("..", "render", "testdata", "three-tenants.yaml"))
	if err != nil {
		t.Fatalf("load three-tenants lab: %v", err)
	}
	return map[string]*lab.Lab{"default": lab.Default(), "three-tenants": l3}
}

// imagesIn collects every string under an "image" key of every YAML
// document: containers, initContainers, kind nodes.
func imagesIn(t *testing.T, name string, data []byte) []string {
	t.Helper()
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if s, ok := c.(string); ok && k == "image" {
					out = append(out, s)
					continue
				}
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	for _, doc := range bytes.Split(data, []byte("\n---")) {
		var v any
		if err := yaml.Unmarshal(doc, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		walk(v)
	}
	return out
}

func has(list []Image, ref string, place Place) bool {
	for _, i := range list {
		if Normalize(i.Ref) == Normalize(ref) && (place == "" || i.Place == place) {
			return true
		}
	}
	return false
}

// TestListHoldsEveryRenderedImage: whatever `labctl plan -o` writes, and
// what HAMi's chart renders from the lab's values, names no image the list
// lacks.
func TestListHoldsEveryRenderedImage(t *testing.T) {
	for name, l := range testLabs(t) {
		list, err := List(l)
		if err != nil {
			t.Fatal(err)
		}
		files, err := render.All(l, render.Options{ManagementAddress: render.PlaceholderManagementAddress})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range files {
			for _, ref := range imagesIn(t, f.Name, f.Data) {
				n++
				if !has(list, ref, "") {
					t.Errorf("%s: %s names image %s, which `labctl images` does not list", name, f.Name, ref)
				}
			}
		}
		if n < 1+len(l.Tenants) {
			t.Errorf("%s: only %d images found in the rendered manifests; the walk misses some", name, n)
		}
	}
	// The recorded rendering is of the seed lab's tenant-a values.
	rec, err := os.ReadFile(filepath.Join("..", "render", "testdata", "hami-chart-2.10.0", "tenant-a-lab-device-file.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := List(lab.Default())
	if err != nil {
		t.Fatal(err)
	}
	got := imagesIn(t, "recorded HAMi chart", rec)
	if len(got) != 4 {
		t.Errorf("recorded HAMi chart names %d images, want 4 (device plugin and vGPU monitor, scheduler extender, "+
			"kube-scheduler): %v", len(got), got)
	}
	for _, ref := range got {
		if !has(list, ref, Worker) {
			t.Errorf("the recorded HAMi chart rendering names %s, which the list lacks on the tenant worker", ref)
		}
	}
}

// TestListFollowsTheVersions: every pinned version reaches the list, so a
// changed version changes the images (nothing is typed twice).
func TestListFollowsTheVersions(t *testing.T) {
	l := lab.Default()
	l.Versions.Kubernetes = "v1.35.8"
	l.Versions.KamajiImage = "26.9.1-edge"
	l.Versions.CertManager = "v1.19.0"
	l.Versions.HAMiImage = "v2.11.0"
	l.Versions.HAMiMockDevicePlugin = "1.0.2"
	l.Versions.Konnectivity = "v0.35.0"
	list, err := List(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		ref   string
		place Place
	}{
		{"kindest/node:v1.35.8@sha256:07b2536e30b803ed61d1677a79df6115f798ce64c80f9e22f6ed45afd09323c0", OnDaemon},
		{l.Versions.KindNodeImage, OnDaemon},
		{"registry.k8s.io/kube-apiserver:v1.35.8", Management},
		{"registry.k8s.io/kube-scheduler:v1.35.8", Worker},
		{"clastix/kamaji:26.9.1-edge", Management},
		{"quay.io/jetstack/cert-manager-webhook:v1.19.0", Management},
		{"projecthami/hami:v2.11.0", Worker},
		{"registry.k8s.io/kas-network-proxy/proxy-server:v0.35.0", Management},
		{"registry.k8s.io/kas-network-proxy/proxy-agent:v0.35.0", Worker},
		{"registry.k8s.io/kube-proxy:v1.35.8", Worker},
	} {
		if !has(list, want.ref, want.place) {
			t.Errorf("list lacks %s on the %s", want.ref, want.place)
		}
	}
	if has(list, "registry.k8s.io/kube-apiserver:v1.36.4", "") {
		t.Error("list still names the default tenant version's API server")
	}
}

func TestBundledLeavesOutPreloaded(t *testing.T) {
	list, err := List(lab.Default())
	if err != nil {
		t.Fatal(err)
	}
	worker := lab.Default().Versions.WorkerImage()
	for _, i := range list {
		switch {
		case strings.Contains(i.Ref, "kube-proxy:v1.36.4") && i.Place == Worker:
			if i.Preloaded != worker || i.Bundled() {
				t.Errorf("kube-proxy of the tenant version must count as preloaded in %s: %+v", worker, i)
			}
		case strings.Contains(i.Ref, "kube-apiserver:v1.36.4") && i.Place != Worker:
			// The management node runs kind's default version, not the tenant's.
			if !i.Bundled() || i.Place != Management || i.PullPolicy != "Always" || i.BundlePullPolicy != "IfNotPresent" {
				t.Errorf("the tenant API server runs on the management node, is not preloaded there, "+
					"and Kamaji pulls it Always (IfNotPresent with a bundle): %+v", i)
			}
		case strings.HasPrefix(i.Ref, "gpu-lab/labctl:"):
			t.Errorf("the real lab runs no bind finalizer, yet the list holds its image: %+v", i)
		case i.Ref == render.NVMLMockImage:
			if !i.Bundled() || i.Stage != StageHAMi || i.Place != Worker {
				t.Errorf("the mock NVML library's image is pulled onto every worker in the hami stage, so bundled: %+v", i)
			}
		}
		if i.Source == "" || i.Stage == "" || i.Place == "" {
			t.Errorf("incomplete entry %+v", i)
		}
	}
}

func TestNormalize(t *testing.T) {
	const digest = "sha256:d366a4665ab44f0648d7a00ae3fae139d55e32f9712c67accd604bb55df9d05a"
	tests := []struct{ in, want string }{
		{"busybox:1", "docker.io/library/busybox:1"},
		// The defects of the hand-written Normalize: docker.io/busybox
		// kept no library/, index.docker.io stayed apart, and a reference
		// without a tag did not meet its :latest.
		{"docker.io/busybox:1", "docker.io/library/busybox:1"},
		{"index.docker.io/library/busybox:1", "docker.io/library/busybox:1"},
		{"index.docker.io/projecthami/hami:v2.10.0", "docker.io/projecthami/hami:v2.10.0"},
		{"busybox", "docker.io/library/busybox:latest"},
		{"docker.io/library/busybox:latest", "docker.io/library/busybox:latest"},
		{"projecthami/hami:v2.10.0", "docker.io/projecthami/hami:v2.10.0"},
		{"docker.io/projecthami/hami:v2.10.0", "docker.io/projecthami/hami:v2.10.0"},
		{"registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10"},
		{"localhost/x:1", "localhost/x:1"},
		{"localhost:5000/x:1", "localhost:5000/x:1"},
		{"kindest/node:v1.37.0@" + digest, "docker.io/kindest/node:v1.37.0@" + digest},
		// A digest alone gets no :latest: the digest names the image.
		{"kindest/node@" + digest, "docker.io/kindest/node@" + digest},
		// Not a reference: compared as spelt.
		{"gpu-lab/labctl:<sha256 of labctl>", "gpu-lab/labctl:<sha256 of labctl>"},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, same := range [][2]string{{"busybox", "docker.io/busybox"}, {"busybox", "index.docker.io/library/busybox:latest"}} {
		if Normalize(same[0]) != Normalize(same[1]) {
			t.Errorf("%q and %q name one image but normalize apart", same[0], same[1])
		}
	}
}

// TestPullPoliciesAreWhatTheManifestsSay: the list's pull policy of each
// image is the one the rendered manifests and the recorded HAMi chart set,
// so "IfNotPresent" (imported images are used, never pulled) is read, not
// assumed.
func TestPullPoliciesAreWhatTheManifestsSay(t *testing.T) {
	l := lab.Default()
	list, err := List(l)
	if err != nil {
		t.Fatal(err)
	}
	files, err := render.All(l, render.Options{ManagementAddress: render.PlaceholderManagementAddress})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(filepath.Join("..", "render", "testdata", "hami-chart-2.10.0", "tenant-a-lab-device-file.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, render.File{Name: "recorded HAMi chart", Data: rec})
	seen := 0
	for _, f := range files {
		for _, c := range containersIn(t, f.Data) {
			for _, i := range list {
				if Normalize(i.Ref) != Normalize(c.image) || i.Place == OnDaemon {
					continue
				}
				seen++
				if i.PullPolicy != c.policy {
					t.Errorf("%s: %s asks %q, the list says %q", f.Name, c.image, c.policy, i.PullPolicy)
				}
			}
		}
	}
	if seen < 4 {
		t.Errorf("only %d containers matched: the walk misses some", seen)
	}
}

type container struct{ image, policy string }

// containersIn finds every map with a string "image" (a container) and its
// imagePullPolicy.
func containersIn(t *testing.T, data []byte) []container {
	t.Helper()
	var out []container
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if img, ok := x["image"].(string); ok {
				p, _ := x["imagePullPolicy"].(string)
				out = append(out, container{img, p})
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	for _, doc := range bytes.Split(data, []byte("\n---")) {
		var v any
		if err := yaml.Unmarshal(doc, &v); err != nil {
			t.Fatal(err)
		}
		walk(v)
	}
	return out
}

// TestNoBundledImageIsPulledAlwaysFromABundle: run from a bundle, every pod
// image asks IfNotPresent. The only Always images are Kamaji's control-plane
// containers in the tenants stage on the management node, which is what the
// tenants stage's policy selects (ci/render bundlepullpolicy.go).
func TestNoBundledImageIsPulledAlwaysFromABundle(t *testing.T) {
	for name, l := range testLabs(t) {
		list, err := List(l)
		if err != nil {
			t.Fatal(err)
		}
		always := 0
		for _, i := range list {
			if i.Place == OnDaemon {
				continue
			}
			effective := i.PullPolicy
			if i.BundlePullPolicy != "" {
				effective = i.BundlePullPolicy
			}
			if effective != "IfNotPresent" && i.Preloaded == "" {
				t.Errorf("%s: %s asks %q when run from a bundle", name, i.Ref, effective)
			}
			if i.PullPolicy == "Always" {
				always++
				if i.Stage != StageTenants || i.Place != Management {
					t.Errorf("%s: %s is pulled Always outside the tenant control planes, where no policy changes it", name, i.Ref)
				}
			}
		}
		if always < 2 {
			t.Errorf("%s: %d images pulled Always, want Kamaji's API server and konnectivity server", name, always)
		}
	}
}
