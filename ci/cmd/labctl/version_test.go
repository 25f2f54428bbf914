package main

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func TestVersionText(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		release string
		info    *debug.BuildInfo
		want    []string
	}{
		{"no build info", "", nil, []string{"labctl development build\n", "commit unknown"}},
		{"built from a checkout", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", "0123456789abcdef", "vcs.time", "2026-12-01T00:00:00Z", "vcs.modified", "false")},
			[]string{"labctl development build\n", "commit 0123456789abcdef (2026-12-01T00:00:00Z)\n", "built with go1.26.8"}},
		{"local changes", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201-abc+dirty"},
			Settings: vcs("vcs.revision", "abc", "vcs.modified", "true")},
			[]string{"labctl v0.0.0-20261201-abc+dirty\n", "commit abc + local changes\n"}},
		{"release build", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "fff")},
			[]string{"labctl v1.2.3\n", "commit fff\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := version
			version = tc.release
			defer func() { version = saved }()
			got := versionText(tc.info)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			d := lab.DefaultVersions()
			for _, pinned := range []string{d.Kubernetes, lab.KindModuleVersion, d.KindNodeImage, d.WorkerImage(), d.KamajiChart, d.KamajiImage,
				d.CertManager, d.HAMiChart, d.HAMiImage, d.HAMiMockDevicePlugin, d.Konnectivity, helm.Version} {
				if !strings.Contains(got, pinned) {
					t.Errorf("lacks pinned version %q:\n%s", pinned, got)
				}
			}
		})
	}
}

// TestVersionCommandAndFlag: `labctl version` and `labctl --version` print
// the same text.
func TestVersionCommandAndFlag(t *testing.T) {
	outputs := map[string]string{}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := runRoot(t, args...)
		if err != nil {
			t.Fatalf("labctl %s: %v", args[0], err)
		}
		outputs[args[0]] = out
	}
	if !strings.HasPrefix(outputs["version"], "labctl ") || !strings.Contains(outputs["version"], "HAMi image") {
		t.Errorf("labctl version:\n%s", outputs["version"])
	}
	if outputs["version"] != outputs["--version"] {
		t.Errorf("labctl --version differs from labctl version:\n%s\n---\n%s", outputs["--version"], outputs["version"])
	}
}
