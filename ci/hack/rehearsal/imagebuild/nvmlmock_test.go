package imagebuild

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// The lab's image list names the image this recipe builds, so the
// rehearsal's bundle holds it.
func TestTheListedNVMLMockImageHasARecipe(t *testing.T) {
	list, err := images.List(lab.Default())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, i := range list {
		if strings.Contains(i.Ref, "nvml-mock") {
			n++
			if r := recipeFor(i.Ref); r.Kind != kindNVMLMock {
				t.Errorf("%s: recipe %+v, want %q", i.Ref, r, kindNVMLMock)
			}
		}
	}
	if n != 1 || nvmlMockTag != strings.TrimPrefix(render.NVMLMockImage, "ghcr.io/nvidia/nvml-mock:") {
		t.Errorf("%d nvml-mock images listed, tag %q; want one, %s", n, nvmlMockTag, render.NVMLMockImage)
	}
}

// The build is the Makefile's: a vendored cgo c-shared build of ./bridge
// into libnvidia-ml.so.<version> with every alias, the soname and the
// allow-list cgo needs for them; the image holds it where the lab's
// DaemonSet copies it from.
func TestNVMLMockBuildIsTheMakefiles(t *testing.T) {
	p := nvmlMockProgram("/src")
	args := strings.Join(p.BuildArgs("/out"), " ")
	if want := "build -v -o /out/libnvidia-ml.so.550.163.01 -buildmode=c-shared ./pkg/gpu/mocknvml/bridge"; args != want {
		t.Errorf("go %s, want go %s", args, want)
	}
	env := strings.Join(p.Env(), "\n")
	for _, w := range []string{"CGO_ENABLED=1", "CGO_LDFLAGS_ALLOW=--defsym|-soname", "-Wl,-soname,libnvidia-ml.so.1",
		"-Wl,--defsym,nvmlEventSetWait=nvmlEventSetWait_v2"} {
		if !strings.Contains(env, w) {
			t.Errorf("env lacks %q:\n%s", w, env)
		}
	}
	if n := strings.Count(env, "--defsym,"); n != len(nvmlMockAliases) || n != 14 {
		t.Errorf("%d --defsym aliases, want the Makefile's 14", n)
	}
	if !p.Vendored || p.TreeKey != nvmlMockSnapshot.Commit {
		t.Errorf("program %+v: want a vendored build keyed by the commit", p)
	}
	spec := nvmlMockImage("ghcr.io/nvidia/nvml-mock:sha-0eeb2ee", "/bin", "base")
	if len(spec.Files) != 1 || spec.Files[0].Dest != "/usr/local/lib/libnvidia-ml.so.550.163.01" ||
		spec.Files[0].Src != "/bin/libnvidia-ml.so.550.163.01" {
		t.Errorf("image files %+v", spec.Files)
	}
}

// Where NVIDIA/k8s-test-infra's git history is on this machine
// (GPU_LAB_NVML_MOCK_GIT_DIR, or the fetch tool's snapshot), the aliases
// are the Makefile's at the pinned commit.
func TestNVMLMockAliasesAreTheMakefilesAtThePin(t *testing.T) {
	dir := os.Getenv("GPU_LAB_NVML_MOCK_GIT_DIR")
	if dir == "" {
		dir = "/work/.mirror/NVIDIA+k8s-test-infra/repo"
	}
	out, err := exec.Command("git", "--git-dir="+dir, "show", nvmlMockSnapshot.Commit+":pkg/gpu/mocknvml/Makefile").Output()
	if err != nil {
		t.Skipf("no git history of NVIDIA/k8s-test-infra at %s (set GPU_LAB_NVML_MOCK_GIT_DIR): %v", dir, err)
	}
	var got []string
	for _, m := range regexp.MustCompile(`-Wl,--defsym,(\S+)`).FindAllStringSubmatch(string(out), -1) {
		got = append(got, m[1])
	}
	if !slices.Equal(got, nvmlMockAliases) {
		t.Errorf("the Makefile's aliases at %s:\n%v\nthe rehearsal's:\n%v", nvmlMockSnapshot.Commit[:8], got, nvmlMockAliases)
	}
	for _, w := range []string{"LIB_VERSION ?= " + render.NVMLMockLibVersion, "SONAME_FLAG := -Wl,-soname,$(LIB_SONAME)",
		"CGO_LDFLAGS_ALLOW='--defsym|-soname'"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("the Makefile at %s lacks %q", nvmlMockSnapshot.Commit[:8], w)
		}
	}
}
