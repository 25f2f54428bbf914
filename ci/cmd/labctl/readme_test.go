package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/suite"
)

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadmeBuildsIntoBin: the README builds labctl into bin/, which git
// ignores, and runs it from there, so following it leaves no binary to
// commit by mistake.
func TestReadmeBuildsIntoBin(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	builds := regexp.MustCompile(`go build -o (\S+) \./ci/cmd/labctl`).FindAllStringSubmatch(readme, -1)
	if len(builds) == 0 {
		t.Fatal("README.md builds labctl nowhere")
	}
	for _, b := range builds {
		if b[1] != "bin/labctl" {
			t.Errorf("README.md builds labctl into %s, want bin/labctl", b[1])
		}
	}
	if m := regexp.MustCompile("(^|[\\s`])\\./labctl\\b").FindString(readme); m != "" {
		t.Errorf("README.md still runs ./labctl (%q)", m)
	}
	ignored := false
	for _, line := range strings.Split(readRepoFile(t, ".gitignore"), "\n") {
		ignored = ignored || strings.TrimSpace(line) == "/bin/" || strings.TrimSpace(line) == "bin/"
	}
	if !ignored {
		t.Error(".gitignore does not ignore bin/")
	}
}

// TestReadmeFirstCommand: the Dagger CLI install line, at the engine
// version dagger.json pins, comes right before the first command, and the
// text before it says what to do without privileged Docker.
func TestReadmeFirstCommand(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	var module struct {
		EngineVersion string `json:"engineVersion"`
	}
	if err := json.Unmarshal([]byte(readRepoFile(t, "dagger.json")), &module); err != nil || module.EngineVersion == "" {
		t.Fatalf("dagger.json: no engineVersion (%v)", err)
	}
	first := strings.Index(readme, "\ndagger call ")
	if first < 0 {
		t.Fatal("README.md has no dagger call")
	}
	before := readme[:first]
	lastLine := before[strings.LastIndex(before, "\n")+1:]
	if !strings.Contains(lastLine, "https://dl.dagger.io/dagger/install.sh") ||
		!strings.Contains(lastLine, "DAGGER_VERSION="+strings.TrimPrefix(module.EngineVersion, "v")) {
		t.Errorf("the line before the first dagger call is %q, want the Dagger CLI install at %s", lastLine, module.EngineVersion)
	}
	start := strings.Index(before, "## Two commands")
	if start < 0 {
		t.Fatal(`README.md has no "## Two commands" before its first dagger call`)
	}
	intro := before[start:]
	for _, want := range []string{"privileged", "Without privileged Docker", "labctl testenv up"} {
		if !strings.Contains(intro, want) {
			t.Errorf("the text before the first command lacks %q:\n%s", want, intro)
		}
	}
}

// TestReadmeCountsTheCases: every "<n> cases" of the README is the number
// of cases the suite runs, so adding a case without the README fails here.
func TestReadmeCountsTheCases(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	counts := regexp.MustCompile(`\b(\d+) cases\b`).FindAllStringSubmatch(readme, -1)
	if len(counts) < 2 {
		t.Fatalf("README.md counts the cases %d time(s), want the introduction and the suite's section: %q", len(counts), counts)
	}
	want := strconv.Itoa(len(suite.Cases()))
	for _, c := range counts {
		if c[1] != want {
			t.Errorf("README.md says %q, the suite has %s cases", c[0], want)
		}
	}
}
