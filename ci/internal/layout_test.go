// Package internal_test keeps the layout of ci/ what ci/README.md says it is:
// every entry is documented there, the shared helpers under ci/internal
// import nothing above them, and the user's labctl links none of the
// tests and maintainers' tooling.
package internal_test

import (
	"os"
	"os/exec"
	"path"
	"strings"
	"testing"
)

const module = "github.com/gpu-lab/gpu-lab/"

// goList runs `go list` from the module root with a -f template and the
// package patterns, one output line per package.
func goList(t *testing.T, format string, patterns ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-f", format}, patterns...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", patterns, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestInternalImportsNothingAbove: a package under ci/internal imports of
// this module only other packages under ci/internal and leaves — packages
// that import nothing of this module, such as the Docker CLI adapter
// ci/docker, so nothing of the product's logic sits below the helpers
// (their tests may import more: they are not linked into anything).
func TestInternalImportsNothingAbove(t *testing.T) {
	leaves := map[string]bool{}
	for _, l := range goList(t, `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...") {
		f := strings.Fields(l)
		leaf := true
		for _, imp := range f[1:] {
			leaf = leaf && !strings.HasPrefix(imp, module)
		}
		leaves[f[0]] = leaf
	}
	lines := goList(t, `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./ci/internal/...")
	if len(lines) < 5 {
		t.Fatalf("only %d packages under ci/internal: %q", len(lines), lines)
	}
	for _, l := range lines {
		f := strings.Fields(l)
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, module) && !strings.HasPrefix(imp, module+"ci/internal/") && !leaves[imp] {
				t.Errorf("%s imports %s: ci/internal must not import upward", strings.TrimPrefix(f[0], module), strings.TrimPrefix(imp, module))
			}
		}
	}
}

// TestStagesRoomsImportNoStage: a package under ci/stages/internal (a room
// of the stages: ownership, preflight, pull policy, diagnostics) owns one
// thing below package stages, as kind's pkg/cluster/internal/* do below
// pkg/cluster: nothing it links imports ci/stages, and it imports no other
// room, so each can be read and tested alone.
func TestStagesRoomsImportNoStage(t *testing.T) {
	const stages, rooms = module + "ci/stages", module + "ci/stages/internal/"
	lines := goList(t, `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "./ci/stages/internal/...")
	if len(lines) < 4 {
		t.Fatalf("only %d packages under ci/stages/internal: %q", len(lines), lines)
	}
	for _, l := range lines {
		f := strings.Fields(l)
		for _, dep := range f[1:] {
			if dep == stages || strings.HasPrefix(dep, rooms) {
				t.Errorf("%s links %s: a room of ci/stages imports neither the stages nor another room",
					strings.TrimPrefix(f[0], module), strings.TrimPrefix(dep, module))
			}
		}
	}
}

// TestLabctlLinksNoMaintainersTooling: the user's binary holds no package
// of the maintainers' tooling under ci/hack (the rehearsal's image and
// chart builders, the private daemon; `rehearse` is their command) nor of
// the test infrastructure under ci/test.
func TestLabctlLinksNoMaintainersTooling(t *testing.T) {
	deps := goList(t, `{{.ImportPath}}`, "-deps", "./ci/cmd/labctl")
	found := 0
	for _, d := range deps {
		p := strings.TrimPrefix(d, module)
		if p == d {
			continue
		}
		found++
		if strings.HasPrefix(p, "ci/hack/") || strings.HasPrefix(p, "ci/test/") {
			t.Errorf("labctl links %s: maintainers' tooling and test infrastructure stay out of the user's binary", p)
		}
	}
	if found < 10 {
		t.Fatalf("only %d gpu-lab packages in labctl's dependencies: %q", found, deps)
	}
}

// TestCiLayoutIsDocumented: every entry directly under ci/ — and under
// ci/test and ci/hack — is named in ci/README.md's tables, so `ls ci` and
// the layout page cannot drift apart.
func TestCiLayoutIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dir := range []string{"..", "../test", "../hack"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := path.Join("ci", strings.TrimPrefix(strings.TrimPrefix(dir, ".."), "/"), e.Name())
			if name == "ci/README.md" || name == "ci/test" || name == "ci/hack" {
				continue
			}
			checked++
			if !strings.Contains(string(doc), "`"+name+"`") && !strings.Contains(string(doc), "`"+name+"/") {
				t.Errorf("%s is not in ci/README.md's layout: add a row saying what it is", name)
			}
		}
	}
	if checked < 15 {
		t.Fatalf("only %d entries under ci/", checked)
	}
}
