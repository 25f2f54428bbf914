package moduletest

import (
	"bytes"
	"go/ast"
	"os"
	"regexp"
	"strings"
	"testing"
)

// paramPragmas returns the comment text written above each parameter of fd
// (the Go SDK reads an argument's doc and pragmas from there).
func (m *module) paramPragmas(fd *ast.FuncDecl) map[string]string {
	out := map[string]string{}
	var file *ast.File
	for _, f := range m.files {
		if f.Pos() <= fd.Pos() && fd.End() <= f.End() {
			file = f
		}
	}
	prev := fd.Type.Params.Opening
	for _, field := range fd.Type.Params.List {
		var text strings.Builder
		for _, cg := range file.Comments {
			if cg.Pos() > prev && cg.End() < field.Pos() {
				text.WriteString(cg.Text())
			}
		}
		for _, n := range field.Names {
			out[n.Name] = text.String()
		}
		prev = field.End()
	}
	return out
}

// The lab's options are declared once, on the constructor: no other
// function of the module takes a lab file, version overrides, keep-going or
// the suite's selection, so their docs cannot drift apart.
func TestLabOptionsAreDeclaredOnce(t *testing.T) {
	m := parseModule(t)
	options := []string{"config", "versions", "keepGoing", "run", "parallel", "goproxy", "gosumdb"}
	newFn, ok := m.funcs["New"]
	if !ok {
		t.Fatal("the module has no constructor New")
	}
	docs := m.paramPragmas(newFn)
	for _, o := range options {
		if strings.TrimSpace(docs[o]) == "" {
			t.Errorf("New lacks the documented option %s", o)
		}
	}
	for key, fd := range m.funcs {
		if key == "New" || fd.Type.Params == nil {
			continue
		}
		for _, field := range fd.Type.Params.List {
			for _, n := range field.Names {
				for _, o := range options {
					if n.Name == o && ast.IsExported(fd.Name.Name) {
						t.Errorf("%s declares option %s again; it belongs to the constructor only", key, o)
					}
				}
			}
		}
	}
}

// The default lab file is a +defaultPath pragma (resolved from the context
// directory when it starts with "/": dagger v0.21.8 core/modulesource.go
// :1510-1515), not code, and it names the seed lab ci/lab embeds.
func TestDefaultLabFileIsAPragmaOnTheSeedLab(t *testing.T) {
	m := parseModule(t)
	doc := m.paramPragmas(m.funcs["New"])["config"]
	match := regexp.MustCompile(`\+defaultPath="(/[^"]+)"`).FindStringSubmatch(doc)
	if match == nil {
		t.Fatalf("New's config has no absolute +defaultPath pragma:\n%s", doc)
	}
	if match[1] != "/ci/lab/default-lab.yaml" {
		t.Errorf("config's default %s, want the seed lab /ci/lab/default-lab.yaml", match[1])
	}
	seed, err := os.ReadFile("../.." + match[1])
	if err != nil {
		t.Fatalf("the default lab file: %v", err)
	}
	embed, err := os.ReadFile("../../ci/lab/load.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(embed, []byte("//go:embed default-lab.yaml")) {
		t.Error("ci/lab no longer names default-lab.yaml; the module's default and labctl's would differ")
	}
	if !bytes.Contains(seed, []byte("tenant-a")) {
		t.Error("the default lab file is not the seed lab (no tenant-a)")
	}
}

// `dagger check` runs the repository's tests: UnitTests carries the +check
// pragma and runs the README's test command.
func TestUnitTestsIsACheck(t *testing.T) {
	m := parseModule(t)
	fd, ok := m.funcs["GpuLab.UnitTests"]
	if !ok {
		t.Fatal("GpuLab.UnitTests is missing")
	}
	if !hasPragma(fd, "+check") {
		t.Error("GpuLab.UnitTests lacks // +check: dagger check would not run it")
	}
	if len(fd.Type.Params.List) != 1 {
		t.Error("a check takes no arguments besides ctx (dagger runs it without any)")
	}
	if !calls(fd)["UnitTests"] {
		t.Error("GpuLab.UnitTests does not run labcmd.UnitTests")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("<!-- test-command: ci/test.sh -->")) {
		t.Error("the README's test command is no longer ci/test.sh; labcmd.UnitTestCommand must follow it")
	}
}
