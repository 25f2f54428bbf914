package imagebuild

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseGitDirs(t *testing.T) {
	tests := []struct {
		in      []string
		want    map[string]string
		wantErr string
	}{
		{nil, map[string]string{}, ""},
		{[]string{"clastix/kamaji=/m/k", "Project-HAMi/HAMi=/m/h"}, map[string]string{"clastix/kamaji": "/m/k", "Project-HAMi/HAMi": "/m/h"}, ""},
		{[]string{"clastix/kamaji=/m/k", "clastix/kamaji=/m/k"}, map[string]string{"clastix/kamaji": "/m/k"}, ""},
		{[]string{"clastix/kamaji=/a", "clastix/kamaji=/b"}, nil, "twice"},
		{[]string{"kamaji=/m/k"}, nil, "OWNER/NAME=DIR"},
		{[]string{"clastix/kamaji"}, nil, "OWNER/NAME=DIR"},
		{[]string{"clastix/kamaji="}, nil, "OWNER/NAME=DIR"},
		{[]string{"a/b/c=/d"}, nil, "OWNER/NAME=DIR"},
		{[]string{"/b=/d"}, nil, "OWNER/NAME=DIR"},
	}
	for _, tc := range tests {
		got, err := ParseGitDirs(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseGitDirs(%q) error %v, want one saying %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseGitDirs(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestSnapshotNames(t *testing.T) {
	if d := kamajiSnapshot.dir(); d != "clastix+kamaji-26.8.2-edge-ddbabd87ed0e" {
		t.Errorf("kamaji dir %s", d)
	}
	if d, r := certgenSnapshot.dir(), certgenSnapshot.rev(); d != "kubernetes+ingress-nginx-54523641a89a" || r != "54523641a89a" {
		t.Errorf("untagged snapshot dir %s rev %s", d, r)
	}
}

// Each program links what upstream's release links: the flags are
// checked against the cited build files by hand, the tests keep them.
func TestSnapshotProgramsBuildAsUpstream(t *testing.T) {
	k := kamajiProgram("/t")
	if k.CGO || !k.Trimpath || k.Tree != "/t" || k.TreeKey != kamajiSnapshot.Commit || !reflect.DeepEqual(k.Packages, []string{"."}) {
		t.Errorf("kamaji %+v", k)
	}
	for _, want := range []string{
		"internal.GitCommit=ddbabd87ed0e8d7c319414383e153c46f21733a9 ",
		"internal.GitTag=26.8.2-edge ",
		"internal.BuildTime=2026-08-03T",
		"internal.GitRepo=https://github.com/clastix/kamaji",
	} {
		if !strings.Contains(k.LDFlags, want) {
			t.Errorf("kamaji ldflags %q lack %q", k.LDFlags, want)
		}
	}

	h := hamiProgram("/h")
	if !h.CGO || h.Trimpath || h.Rename["nvidia"] != "nvidia-device-plugin" || len(h.Packages) != 3 {
		t.Errorf("hami %+v", h)
	}
	for _, want := range []string{"-s -w ", "version.version=v2.10.0 ", "info.version=v2.10.0 ", "version.revision=4707fb0 "} {
		if !strings.Contains(h.LDFlags, want) {
			t.Errorf("hami ldflags %q lack %q", h.LDFlags, want)
		}
	}

	c := certManagerProgram("webhook", "/c/cmd/webhook")
	if c.CGO || !c.Trimpath || c.Rename["webhook-binary"] != "webhook" || c.Tree != "/c/cmd/webhook" ||
		c.LDFlags != "-w -s -X github.com/cert-manager/cert-manager/pkg/util.AppVersion=v1.18.3 -X "+
			"github.com/cert-manager/cert-manager/pkg/util.AppGitCommit=0be5a60e327cc1b39acb18b063fbdb7557002646" {
		t.Errorf("cert-manager webhook %+v", c)
	}
	if c2 := certManagerProgram("controller", "/c/cmd/controller"); c2.Key("go1.26.8", "linux", "amd64") ==
		c.Key("go1.26.8", "linux", "amd64") {
		t.Error("two cert-manager commands share a cache entry")
	}

	g := certgenProgram("/g")
	if g.CGO || g.Trimpath || g.LDFlags != "" || g.Module != "github.com/jet/kube-webhook-certgen" || g.TreeKey != certgenSnapshot.Commit {
		t.Errorf("certgen %+v", g)
	}
}

func TestSnapshotDifferencesOnlyForPlannedImages(t *testing.T) {
	join := func(p Plan) string { return strings.Join(differences(p), "\n") }
	none := join(Plan{Bundle: []recipe{recipeFor("registry.k8s.io/coredns/coredns:v1.14.2")}})
	if strings.Contains(none, "git snapshots") || strings.Contains(none, "libvgpu") {
		t.Errorf("differences of a plan without snapshot images name them:\n%s", none)
	}
	all := join(Plan{Bundle: []recipe{
		recipeFor("clastix/kamaji:26.8.2-edge"), recipeFor("docker.io/projecthami/hami:v2.10.0"),
		recipeFor("quay.io/jetstack/cert-manager-webhook:v1.18.3"),
	}, Extra: []recipe{recipeFor("docker.io/liangjw/kube-webhook-certgen:v1.1.1")}})
	for _, want := range []string{"git snapshots", "/ko-app/kamaji", "libvgpu.so", "/licenses/LICENSE", "stand-in",
		"admissionregistration/v1beta1"} {
		if !strings.Contains(all, want) {
			t.Errorf("differences lack %q:\n%s", want, all)
		}
	}
}
