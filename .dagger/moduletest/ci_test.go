package moduletest

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"dagger/gpu-lab/labcmd"
)

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

type ghStep struct {
	Name string            `json:"name"`
	Uses string            `json:"uses"`
	If   string            `json:"if"`
	Run  string            `json:"run"`
	With map[string]string `json:"with"`
}

func TestGitHubWorkflow(t *testing.T) {
	var wf struct {
		Permissions map[string]string `json:"permissions"`
		Jobs        map[string]struct {
			TimeoutMinutes int      `json:"timeout-minutes"`
			Steps          []ghStep `json:"steps"`
		} `json:"jobs"`
	}
	readYAML(t, "../../.github/workflows/lab.yml", &wf)
	if wf.Permissions["checks"] != "write" {
		t.Errorf("permissions.checks = %q, want write (the JUnit reporter creates a check run)", wf.Permissions["checks"])
	}
	job, ok := wf.Jobs["lab-test"]
	if !ok {
		t.Fatal("no job lab-test")
	}
	index := func(pred func(ghStep) bool) int { return slices.IndexFunc(job.Steps, pred) }
	var calls []string
	for _, s := range job.Steps {
		if !strings.HasPrefix(s.Uses, "dagger/dagger-for-github@") {
			continue
		}
		if s.Uses != "dagger/dagger-for-github@"+labcmd.DaggerForGitHubVersion {
			t.Errorf("step %q uses %s, want dagger/dagger-for-github@%s", s.Name, s.Uses, labcmd.DaggerForGitHubVersion)
		}
		if s.With["version"] != labcmd.DaggerVersion {
			t.Errorf("step %q: version %q, want %q", s.Name, s.With["version"], labcmd.DaggerVersion)
		}
		if s.With["verb"] != "call" {
			t.Errorf("step %q: verb %q, want call", s.Name, s.With["verb"])
		}
		calls = append(calls, "dagger call "+s.With["args"])
	}
	if want := []string{labcmd.CIRun, labcmd.CICheck}; !slices.Equal(calls, want) {
		t.Fatalf("dagger calls %q, want %q in that order", calls, want)
	}
	run := index(func(s ghStep) bool { return strings.HasPrefix(s.Uses, "dagger/") })
	upload := index(func(s ghStep) bool { return strings.HasPrefix(s.Uses, "actions/upload-artifact@") })
	junit := index(func(s ghStep) bool { return strings.HasPrefix(s.Uses, "mikepenz/action-junit-report@") })
	summary := index(func(s ghStep) bool { return strings.Contains(s.Run, "$GITHUB_STEP_SUMMARY") })
	check := len(job.Steps) - 1
	for name, i := range map[string]int{"upload-artifact": upload, "junit report": junit, "step summary": summary} {
		if i < 0 {
			t.Errorf("no %s step", name)
			continue
		}
		if job.Steps[i].If != "always()" {
			t.Errorf("%s step: if %q, want always()", name, job.Steps[i].If)
		}
		if i < run || i > check {
			t.Errorf("%s step must come after lab-test and before the final check", name)
		}
	}
	if upload >= 0 && job.Steps[upload].With["path"] != "reports/" {
		t.Errorf("upload path %q, want reports/", job.Steps[upload].With["path"])
	}
	if junit >= 0 && job.Steps[junit].With["report_paths"] != "reports/junit.xml" {
		t.Errorf("junit report_paths %q, want reports/junit.xml", job.Steps[junit].With["report_paths"])
	}
	if summary >= 0 && !strings.Contains(job.Steps[summary].Run, "reports/summary.md") {
		t.Errorf("summary step does not append reports/summary.md")
	}
	if job.Steps[check].With["args"] != strings.TrimPrefix(labcmd.CICheck, "dagger call ") {
		t.Errorf("the last step must be the check, so reports are published before the job fails")
	}
	sysctl := index(func(s ghStep) bool { return strings.TrimSpace(s.Run) == "sudo "+labcmd.InotifySysctl })
	if sysctl < 0 || sysctl > run {
		t.Errorf("want a step running `sudo %s` before lab-test (kind nodes need the raised inotify limits)", labcmd.InotifySysctl)
	}
	if got := time.Duration(job.TimeoutMinutes) * time.Minute; got <= labcmd.ColdRunEstimate {
		t.Errorf("timeout-minutes %d: want more than a cold hosted run (labcmd.ColdRunEstimate %s)", job.TimeoutMinutes, labcmd.ColdRunEstimate)
	}
}

func TestGitLabPipeline(t *testing.T) {
	var ci map[string]json.RawMessage
	readYAML(t, "../../.gitlab-ci.yml", &ci)
	var job struct {
		Services []struct {
			Name string `json:"name"`
		} `json:"services"`
		Variables    map[string]string `json:"variables"`
		Timeout      string            `json:"timeout"`
		BeforeScript []string          `json:"before_script"`
		Script       []string          `json:"script"`
		Artifacts    struct {
			When    string   `json:"when"`
			Paths   []string `json:"paths"`
			Reports struct {
				JUnit string `json:"junit"`
			} `json:"reports"`
		} `json:"artifacts"`
	}
	if err := json.Unmarshal(ci["lab-test"], &job); err != nil {
		t.Fatalf("job lab-test: %v", err)
	}
	if !slices.ContainsFunc(job.Services, func(s struct {
		Name string `json:"name"`
	}) bool {
		return strings.HasPrefix(s.Name, "docker:") && strings.HasSuffix(s.Name, "-dind")
	}) {
		t.Errorf("services %v: want a docker:*-dind service", job.Services)
	}
	if job.Variables["DAGGER_VERSION"] != labcmd.DaggerVersion {
		t.Errorf("DAGGER_VERSION %q, want %q", job.Variables["DAGGER_VERSION"], labcmd.DaggerVersion)
	}
	if !slices.ContainsFunc(job.BeforeScript, func(l string) bool {
		return strings.Contains(l, "install.sh") && strings.Contains(l, "DAGGER_VERSION=$DAGGER_VERSION")
	}) {
		t.Errorf("before_script %q does not install the pinned Dagger CLI", job.BeforeScript)
	}
	if want := []string{labcmd.CIRun, labcmd.CICheck}; !slices.Equal(job.Script, want) {
		t.Errorf("script %q, want exactly %q", job.Script, want)
	}
	if !slices.ContainsFunc(job.BeforeScript, func(l string) bool { return strings.HasPrefix(l, labcmd.InotifySysctl+" || ") }) {
		t.Errorf("before_script %q: want `%s || <warning>` (best effort: kind nodes need the raised inotify limits)", job.BeforeScript,
			labcmd.InotifySysctl)
	}
	// GitLab's timeout is human-readable; this file uses Go-compatible units.
	if d, err := time.ParseDuration(job.Timeout); err != nil || d <= labcmd.ColdRunEstimate {
		t.Errorf("timeout %q: want a duration longer than a cold hosted run (labcmd.ColdRunEstimate %s)", job.Timeout, labcmd.ColdRunEstimate)
	}
	if job.Artifacts.When != "always" || job.Artifacts.Reports.JUnit != "reports/junit.xml" ||
		!slices.Contains(job.Artifacts.Paths, "reports/") {
		t.Errorf("artifacts %+v: want when: always, reports:junit reports/junit.xml and paths [reports/] (HTML report included)", job.Artifacts)
	}
}

func TestDaggerJSON(t *testing.T) {
	b, err := os.ReadFile("../../dagger.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Name          string `json:"name"`
		EngineVersion string `json:"engineVersion"`
		SDK           struct {
			Source string `json:"source"`
		} `json:"sdk"`
		Source  string `json:"source"`
		Codegen struct {
			AutomaticGitignore *bool `json:"automaticGitignore"`
		} `json:"codegen"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Name != "gpu-lab" || cfg.EngineVersion != "v"+labcmd.DaggerVersion || cfg.SDK.Source != "go" || cfg.Source != ".dagger" {
		t.Errorf("dagger.json %+v: want name gpu-lab, engineVersion v%s, sdk go, source .dagger", cfg, labcmd.DaggerVersion)
	}
	if cfg.Codegen.AutomaticGitignore == nil || *cfg.Codegen.AutomaticGitignore {
		t.Error("dagger.json: codegen.automaticGitignore must be false (the bindings are committed)")
	}
}

func TestCodegenIsPinned(t *testing.T) {
	sh, err := os.ReadFile("../hack/codegen.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sh), "DAGGER_VERSION=v"+labcmd.DaggerVersion+"\n") || !strings.Contains(string(sh), "MODULE_NAME=gpu-lab\n") {
		t.Error("hack/codegen.sh does not pin DAGGER_VERSION and MODULE_NAME to the module's")
	}
	mod, err := os.ReadFile("../hack/codegen/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mod), "github.com/dagger/dagger v"+labcmd.DaggerVersion) {
		t.Errorf("hack/codegen/go.mod does not require github.com/dagger/dagger v%s", labcmd.DaggerVersion)
	}
}

// The README shows the same CI lines the files run.
func TestReadmeShowsTheCILines(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{labcmd.CIRun, labcmd.CICheck} {
		if !strings.Contains(string(b), line) {
			t.Errorf(".dagger/README.md does not show %q", line)
		}
	}
}
