package lab

import (
	"strings"
	"testing"
)

// TestVersionStrings: every versions.* value is checked against the
// grammar of what it names, so none reaches docker, kind or helm as an
// option, a second --set value, or a reference that is no reference.
func TestVersionStrings(t *testing.T) {
	ref := func(v, why string) string {
		return `versions.kindNodeImage: Invalid value: "` + v + `": must be an image reference such as "` +
			DefaultVersions().KindNodeImage + `" (` + why + `)`
	}
	tag := func(f, v, def string) string {
		return `versions.` + f + `: Invalid value: "` + v + `": must be an image tag such as "` + def +
			`": letters, digits, '_', '.' and '-', starting with a letter, digit or '_', at most 128 characters`
	}
	chart := func(f, v, def, why string) string {
		return `versions.` + f + `: Invalid value: "` + v + `": must be one chart version in SemVer 2 form ` +
			`(MAJOR.MINOR.PATCH, optionally with a leading v, -prerelease and +build), such as "` + def + `" (` + why + `)`
	}
	for _, tc := range []struct {
		field, value, want string
	}{
		{"kindNodeImage", "x@y", ref("x@y", "invalid reference format")},
		{"kindNodeImage", "--privileged", ref("--privileged", "invalid reference format")},
		{"kindNodeImage", "kindest/Node:v1",
			ref("kindest/Node:v1", "invalid reference format: repository name (kindest/Node) must be lowercase")},
		{"kindNodeImage", "kindest/node@sha256:abc", ref("kindest/node@sha256:abc", "invalid reference format")},
		{"kindNodeImage", "kindest/node@md5:" + strings.Repeat("0", 32),
			ref("kindest/node@md5:"+strings.Repeat("0", 32), "unsupported digest algorithm")},
		{"kindNodeImage", "a;b", ref("a;b", "invalid reference format")},
		{"kamajiImage", "x,securityContext.privileged=true,hostNetwork=true",
			tag("kamajiImage", "x,securityContext.privileged=true,hostNetwork=true", "26.8.2-edge")},
		{"kamajiImage", "-x", tag("kamajiImage", "-x", "26.8.2-edge")},
		{"hamiImage", "v2.10.0 ", tag("hamiImage", "v2.10.0 ", "v2.10.0")},
		{"hamiImage", "$(id)", tag("hamiImage", "$(id)", "v2.10.0")},
		{"hamiMockDevicePlugin", ".1", tag("hamiMockDevicePlugin", ".1", "1.0.1")},
		{"konnectivity", strings.Repeat("v", 129), tag("konnectivity", strings.Repeat("v", 129), "v0.36.0")},
		{"konnectivity", "a\nb", `versions.konnectivity: Invalid value: "a\nb": must be an image tag such as "v0.36.0": ` +
			`letters, digits, '_', '.' and '-', starting with a letter, digit or '_', at most 128 characters`},
		{"kamajiChart", "latest", chart("kamajiChart", "latest", "0.0.0+latest", `could not parse "latest" as version`)},
		{"certManager", "--devel", chart("certManager", "--devel", "v1.18.3", `could not parse "--devel" as version`)},
		{"hamiChart", "^2.0.0", chart("hamiChart", "^2.0.0", "2.10.0", `could not parse "^2.0.0" as version`)},
		{"hamiChart", "2.10", chart("hamiChart", "2.10", "2.10.0", `illegal version string "2.10"`)},
		{"hamiChart", " 2.10.0", chart("hamiChart", " 2.10.0", "2.10.0", "leading or trailing whitespace")},
		{"workerNodeImage", "x@y", `versions.workerNodeImage: Invalid value: "x@y": must be an image reference such as "` +
			WorkerImages[DefaultVersions().Kubernetes] +
			`" (invalid reference format), or left out for kind's published image`},
		{"workerNodeImage", "kindest/node:v1.35.8",
			`versions.workerNodeImage: Invalid value: "kindest/node:v1.35.8": is tagged v1.35.8 but the workers ` +
				`run versions.kubernetes v1.36.4: name a node image of v1.36.4, or set versions.kubernetes to v1.35.8`},
		{"hamiChart", "2.10.0,x=y", chart("hamiChart", "2.10.0,x=y", "2.10.0",
			`could not parse pre-release/metadata (,x=y) in version "2.10.0,x=y"`)},
	} {
		t.Run(tc.field+"="+tc.value, func(t *testing.T) {
			src := "versions:\n  " + tc.field + ": " + quoteYAML(tc.value) + "\n" + labWith("l", "a: w")
			wantProblems(t, src, formatYAML, tc.want)
		})
	}
}

// TestVersionStringsAccepted: the pins' own forms stay valid, among them
// Kamaji's chart 0.0.0+latest and cert-manager's v-prefixed chart.
func TestVersionStringsAccepted(t *testing.T) {
	for field, values := range map[string][]string{
		"kindNodeImage": {DefaultVersions().KindNodeImage, "kindest/node:v1.35.0", "registry.local:5000/kind/node:x", "kindest/node"},
		"workerNodeImage": {WorkerImages[DefaultVersions().Kubernetes],
			"registry.local:5000/kind/node:v1.36.4@sha256:" + strings.Repeat("b", 64), "kind/node"},
		"kamajiChart":  {"0.0.0+latest", "1.0.0", "0.0.0-rc.1+build.5"},
		"certManager":  {"v1.18.3", "1.18.3"},
		"hamiChart":    {"2.10.0"},
		"kamajiImage":  {"26.8.2-edge", "latest", "_x"},
		"hamiImage":    {"v2.10.0", strings.Repeat("v", 128)},
		"konnectivity": {"v0.36.0"},
	} {
		for _, v := range values {
			src := "versions:\n  " + field + ": " + quoteYAML(v) + "\n" + labWith("l", "a: w")
			if _, err := Parse([]byte(src)); err != nil {
				t.Errorf("versions.%s = %q refused: %v", field, v, err)
			}
		}
	}
}

// quoteYAML is v as a YAML double-quoted scalar.
func quoteYAML(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v) + `"`
}

// TestWorkerImage: the workers run the lab's own worker node image when it
// names one, kind's published image for the tenants' version otherwise.
func TestWorkerImage(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Versions
		want string
	}{
		{"published image of the version", Versions{Kubernetes: "v1.35.8"}, WorkerImages["v1.35.8"]},
		{"the lab's own image", Versions{Kubernetes: "v1.35.8",
			WorkerNodeImage: "mirror.local/kindest/node:v1.35.8@sha256:" + strings.Repeat("c", 64)},
			"mirror.local/kindest/node:v1.35.8@sha256:" + strings.Repeat("c", 64)},
	} {
		if got := tc.v.WorkerImage(); got != tc.want {
			t.Errorf("%s: WorkerImage() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
