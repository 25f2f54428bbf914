package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rehrun "github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/run"
)

// `rehearse run`'s flags resolve to absolute paths with defaults under the
// rehearsal's cache root, labctl built into the cache unless --labctl,
// and a helm found in the documented order.
func TestRehearseRunOptions(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("LABCTL_HELM", "")
	root := filepath.Join(cache, "gpu-lab", "rehearsal")
	noHelm := func(string) (string, error) { return "", errors.New("not found") }
	pathHelm := func(string) (string, error) { return "/usr/bin/helm", nil }

	o, err := runFlags{reports: "out"}.options(pathHelm)
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	for name, got := range map[string][2]string{
		"labctl":  {o.Labctl, filepath.Join(root, "bin", "labctl")},
		"helm":    {o.Helm, "/usr/bin/helm"},
		"bundle":  {o.Bundle, filepath.Join(root, "bundle")},
		"state":   {o.State, filepath.Join(root, "run", "state")},
		"reports": {o.Reports, filepath.Join(wd, "out")},
		"daemon":  {o.Daemon.Dir, filepath.Join(root, "daemon")},
		"netns":   {o.Netns, ""},
		"charts":  {o.Charts, ""},
		"lab":     {o.LabFile, filepath.Join(root, "rehearsal-lab.yaml")},
	} {
		if got[0] != got[1] {
			t.Errorf("%s = %q, want %q", name, got[0], got[1])
		}
	}

	if b, err := os.ReadFile(o.LabFile); err != nil || !bytes.Contains(b, []byte("kindest/node:v1.36.4@")) {
		t.Errorf("the default lab file %s: %v, want the rehearsal's lab (management node v1.36.4):\n%s", o.LabFile, err, b)
	}

	// No helm anywhere: the error says how to install the pinned one.
	if _, err := (runFlags{}).options(noHelm); err == nil || !strings.Contains(err.Error(), "go install helm.sh/helm/v3/cmd/helm@v3.19.0") {
		t.Errorf("without helm: %v", err)
	}
	// The maintainer's helm and charts under the cache are found.
	for _, d := range []string{filepath.Join(root, "bin"), filepath.Join(root, "charts")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "bin", "helm"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	o, err = runFlags{workDir: "w", file: "lab.yaml", labctl: "/opt/labctl"}.options(noHelm)
	if err != nil {
		t.Fatal(err)
	}
	if o.Helm != filepath.Join(root, "bin", "helm") || o.Charts != filepath.Join(root, "charts") {
		t.Errorf("helm %q, charts %q: want the cache's", o.Helm, o.Charts)
	}
	if o.Labctl != "/opt/labctl" {
		t.Errorf("labctl %q, want --labctl's", o.Labctl)
	}
	if o.State != filepath.Join(wd, "w", "state") || o.LabFile != filepath.Join(wd, "lab.yaml") {
		t.Errorf("state %q, lab file %q: want them absolute", o.State, o.LabFile)
	}
	t.Setenv("LABCTL_HELM", "/env/helm")
	if o, _ := (runFlags{}).options(pathHelm); o.Helm != "/env/helm" {
		t.Errorf("helm %q, want $LABCTL_HELM's", o.Helm)
	}
}

// TestRehearseRunBaseline: --baseline reads the earlier run's figures
// before anything runs, and a directory without them is refused naming
// the fix.
func TestRehearseRunBaseline(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("LABCTL_HELM", "")
	pathHelm := func(string) (string, error) { return "/usr/bin/helm", nil }
	if _, err := (runFlags{reports: "out", baseline: t.TempDir()}).options(pathHelm); err == nil ||
		!strings.Contains(err.Error(), "has no figures.json: give the --reports directory of a rehearsal run that wrote one") {
		t.Errorf("--baseline without figures.json: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, rehrun.FiguresFile), []byte(`{"lab":"gpu-lab","tenants":2,"up":196245000000}`), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := runFlags{reports: "out", baseline: dir}.options(pathHelm)
	if err != nil || o.Baseline == nil || o.Baseline.Figures.Tenants != 2 || o.Baseline.Dir != dir {
		t.Errorf("--baseline %s: %+v, %v", dir, o.Baseline, err)
	}
}
