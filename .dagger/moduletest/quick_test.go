package moduletest

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"

	"dagger/gpu-lab/labcmd"
)

// The quick tier is the first job of the GitHub workflow: it runs the quick
// test and checks its own reports, and lab-test waits for it.
func TestGitHubRunsQuickTestFirst(t *testing.T) {
	raw, err := os.ReadFile("../../.github/workflows/lab.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Needs any      `json:"needs"`
			Steps []ghStep `json:"steps"`
		} `json:"jobs"`
	}
	readYAML(t, "../../.github/workflows/lab.yml", &wf)
	job, ok := wf.Jobs[labcmd.CIQuickJob]
	if !ok {
		t.Fatalf("no job %s", labcmd.CIQuickJob)
	}
	var calls []string
	for _, s := range job.Steps {
		if strings.HasPrefix(s.Uses, "dagger/dagger-for-github@") {
			if s.Uses != "dagger/dagger-for-github@"+labcmd.DaggerForGitHubVersion || s.With["version"] != labcmd.DaggerVersion {
				t.Errorf("step %q: %s version %q, want the pinned Dagger", s.Name, s.Uses, s.With["version"])
			}
			call := "dagger " + s.With["verb"]
			if s.With["args"] != "" {
				call += " " + s.With["args"]
			}
			calls = append(calls, call)
		}
	}
	if want := []string{labcmd.CICheckTests, labcmd.CIQuickRun, labcmd.CIQuickCheck}; !slices.Equal(calls, want) {
		t.Errorf("%s calls %q, want %q", labcmd.CIQuickJob, calls, want)
	}
	if needs := wf.Jobs["lab-test"].Needs; needs != labcmd.CIQuickJob {
		t.Errorf("lab-test needs %v, want %s (the quick tier first)", needs, labcmd.CIQuickJob)
	}
	if q, l := strings.Index(string(raw), "\n  "+labcmd.CIQuickJob+":"), strings.Index(string(raw), "\n  lab-test:"); q < 0 || q > l {
		t.Errorf("%s is not the first job in the file", labcmd.CIQuickJob)
	}
}

// The quick tier is GitLab's first stage, with the same two lines.
func TestGitLabRunsQuickTestFirst(t *testing.T) {
	var ci map[string]json.RawMessage
	readYAML(t, "../../.gitlab-ci.yml", &ci)
	var stages []string
	if err := json.Unmarshal(ci["stages"], &stages); err != nil {
		t.Fatal(err)
	}
	type job struct {
		Stage  string   `json:"stage"`
		Script []string `json:"script"`
	}
	var quick, lab job
	if err := json.Unmarshal(ci[labcmd.CIQuickJob], &quick); err != nil {
		t.Fatalf("job %s: %v", labcmd.CIQuickJob, err)
	}
	if err := json.Unmarshal(ci["lab-test"], &lab); err != nil {
		t.Fatal(err)
	}
	if qi, li := slices.Index(stages, quick.Stage), slices.Index(stages, lab.Stage); qi < 0 || li < 0 || qi >= li {
		t.Errorf("stages %v: %s (stage %q) must come before lab-test (stage %q)", stages, labcmd.CIQuickJob, quick.Stage, lab.Stage)
	}
	if want := []string{labcmd.CICheckTests, labcmd.CIQuickRun, labcmd.CIQuickCheck}; !slices.Equal(quick.Script, want) {
		t.Errorf("%s script %q, want %q", labcmd.CIQuickJob, quick.Script, want)
	}
}

// The quick test pins the HAMi image tag the lab pins (ci/lab's default
// versions.hamiImage, the HAMiImage field of its Versions literal).
func TestQuickTestPinsTheLabsHAMiTag(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../../ci/lab/versions.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ast.Inspect(f, func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "HAMiImage" {
				if v, ok := kv.Value.(*ast.BasicLit); ok {
					got = append(got, strings.Trim(v.Value, "`\""))
				}
			}
		}
		return true
	})
	if len(got) != 1 || got[0] != labcmd.HAMiImageTag {
		t.Errorf("ci/lab's default versions.hamiImage %q, labcmd.HAMiImageTag %q", got, labcmd.HAMiImageTag)
	}
}

// quick-test runs in a plain container: it starts no Docker service and
// asks for no privileges, and, since it acts (builds, runs processes, reads
// an image), it is never answered from the function cache.
func TestQuickTestIsPlainAndNeverCached(t *testing.T) {
	m := parseModule(t)
	fd, ok := m.funcs["GpuLab.QuickTest"]
	if !ok {
		t.Fatal("GpuLab.QuickTest is missing")
	}
	if !hasPragma(fd, `+cache="never"`) {
		t.Error(`GpuLab.QuickTest lacks // +cache="never"`)
	}
	if m.sideEffecting()["GpuLab.QuickTest"] {
		t.Error("GpuLab.QuickTest reaches the Docker service; it must run without one")
	}
	c := calls(fd)
	for _, banned := range []string{"dind", "startDind", "WithServiceBinding", "AsService"} {
		if c[banned] {
			t.Errorf("GpuLab.QuickTest calls %s", banned)
		}
	}
	ast.Inspect(fd, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && (id.Name == "InsecureRootCapabilities" || id.Name == "ExperimentalPrivilegedNesting") {
			t.Errorf("GpuLab.QuickTest asks for %s", id.Name)
		}
		return true
	})
	for _, want := range []string{"QuickTest", "QuickBuild", "HAMiImage", "From", "File"} {
		if !c[want] {
			t.Errorf("GpuLab.QuickTest does not call %s", want)
		}
	}
}
