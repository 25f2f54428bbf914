package k8srelease

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/gobuild"
)

// The stamp kube::version::ldflags writes (hack/lib/version.sh v1.37.0:
// 151-182): each key for both version packages, quoted; "all=" first and
// "-s -w" last (hack/lib/golang.sh:936,946).
func TestLDFlagsStampTheVersionAsUpstream(t *testing.T) {
	released := time.Date(2026, 8, 26, 10, 44, 20, 0, time.UTC)
	tests := []struct {
		version string
		want    []string
	}{
		{"v1.37.0", []string{
			"-X 'k8s.io/component-base/version.gitVersion=v1.37.0'",
			"-X 'k8s.io/client-go/pkg/version.gitVersion=v1.37.0'",
			"-X 'k8s.io/component-base/version.gitMajor=1'",
			"-X 'k8s.io/component-base/version.gitMinor=37'",
			"-X 'k8s.io/client-go/pkg/version.gitMinor=37'",
			"-X 'k8s.io/component-base/version.buildDate=2026-08-26T10:44:20Z'",
		}},
		{"v1.36.4", []string{"-X 'k8s.io/component-base/version.gitVersion=v1.36.4'", "-X 'k8s.io/component-base/version.gitMinor=36'"}},
	}
	for _, tc := range tests {
		t.Run(tc.version, func(t *testing.T) {
			got, err := ldFlags(tc.version, released)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, "all=") || !strings.HasSuffix(got, " -s -w") {
				t.Errorf("ldflags %q: want all=… -s -w", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("ldflags lack %s:\n%s", w, got)
				}
			}
			if strings.Contains(got, "gitCommit") || strings.Contains(got, "gitTreeState") {
				t.Errorf("ldflags stamp a commit a module zip does not know: %s", got)
			}
		})
	}
}

func TestLDFlagsRefuseAVersionThatIsNotSemantic(t *testing.T) {
	for _, v := range []string{"1.37.0", "v1.37", "latest", ""} {
		if _, err := ldFlags(v, time.Now()); err == nil {
			t.Errorf("LDFlags(%q) gave no error", v)
		}
	}
}

func TestProgramPinsEveryStagingModuleToTheRelease(t *testing.T) {
	facts := gobuild.GoModFacts{Go: "1.26.0", Godebug: "default=go1.26", Staging: []string{"k8s.io/api", "k8s.io/kubelet"}}
	p, err := program("v1.37.0", facts, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	mod := p.GoMod()
	for _, w := range []string{"k8s.io/kubernetes v1.37.0", "k8s.io/api => k8s.io/api v0.37.0", "k8s.io/kubelet => k8s.io/kubelet v0.37.0",
		"godebug default=go1.26", "go 1.26.0"} {
		if !strings.Contains(mod, w) {
			t.Errorf("go.mod lacks %q:\n%s", w, mod)
		}
	}
	if p.CGO || !p.Trimpath || strings.Join(p.Tags, ",") != "selinux,notest,grpcnotrace" {
		t.Errorf("program %+v: want static, trimmed, tags selinux,notest,grpcnotrace", p)
	}
	bins := strings.Join(p.Binaries(), " ")
	for _, b := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy", "kubelet", "kubeadm", "kubectl",
		"kube-log-runner"} {
		if !strings.Contains(bins, b) {
			t.Errorf("binaries %q lack %s", bins, b)
		}
	}
	if _, err := program("v1.37.0", gobuild.GoModFacts{}, time.Unix(0, 0)); err == nil {
		t.Error("a go.mod without staging replaces gave no error")
	}
}

func TestStagingVersion(t *testing.T) {
	for in, want := range map[string]string{"v1.37.0": "v0.37.0", "v1.36.4": "v0.36.4"} {
		if got := stagingVersion(in); got != want {
			t.Errorf("StagingVersion(%s) = %s, want %s", in, got, want)
		}
	}
}
