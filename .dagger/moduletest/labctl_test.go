package moduletest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"dagger/gpu-lab/labcmd"
)

func parseRoot(t *testing.T, path string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../../"+path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func stringLit(e ast.Expr) (string, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(bl.Value)
	return s, err == nil
}

// labcmd.Stages must be labctl's stage list (ci/stages.Names), in order.
func TestStagesMatchLabctl(t *testing.T) {
	f := parseRoot(t, "ci/stages/names.go")
	consts := map[string]string{}
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, id := range vs.Names {
			if i < len(vs.Values) {
				if s, ok := stringLit(vs.Values[i]); ok {
					consts[id.Name] = s
				}
				if id.Name == "Names" {
					for _, el := range vs.Values[i].(*ast.CompositeLit).Elts {
						names = append(names, el.(*ast.Ident).Name)
					}
				}
			}
		}
		return true
	})
	var got []string
	for _, n := range names {
		got = append(got, consts[n])
	}
	if !slices.Equal(got, labcmd.Stages) {
		t.Fatalf("ci/stages.Names = %q, labcmd.Stages = %q", got, labcmd.Stages)
	}
}

// labcmd.VersionFields must be the JSON keys of ci/lab.Versions, and the
// terminal's kubectl the default tenant version.
func TestVersionsMatchLabSpec(t *testing.T) {
	f := parseRoot(t, "ci/lab/versions.go")
	var fields []string
	var kubernetes string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeSpec:
			if n.Name.Name != "Versions" {
				return true
			}
			for _, fld := range n.Type.(*ast.StructType).Fields.List {
				tag, _ := strconv.Unquote(fld.Tag.Value)
				name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
				fields = append(fields, name)
			}
		case *ast.FuncDecl:
			if n.Name.Name != "DefaultVersions" {
				return true
			}
			ast.Inspect(n, func(m ast.Node) bool {
				if kv, ok := m.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Kubernetes" {
						kubernetes, _ = stringLit(kv.Value)
					}
				}
				return true
			})
		}
		return true
	})
	if !slices.Equal(fields, labcmd.VersionFields) {
		t.Errorf("ci/lab.Versions JSON keys = %q, labcmd.VersionFields = %q", fields, labcmd.VersionFields)
	}
	if kubernetes != labcmd.KubectlVersion {
		t.Errorf("default tenant Kubernetes %q, labcmd.KubectlVersion %q", kubernetes, labcmd.KubectlVersion)
	}
}

// The runner gets the helm CLI version the stages are written against.
func TestHelmMatchesStages(t *testing.T) {
	f := parseRoot(t, "ci/internal/helm/helm.go")
	var got string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && vs.Names[0].Name == "Version" && len(vs.Values) == 1 {
			got, _ = stringLit(vs.Values[0])
		}
		return true
	})
	if got != labcmd.HelmVersion {
		t.Fatalf("ci/internal/helm.Version %q, labcmd.HelmVersion %q", got, labcmd.HelmVersion)
	}
}

// sharedFlagSources is the source of ci/cmd/labctl files that define no
// command of their own (flag sets several commands register).
func sharedFlagSources(t *testing.T) string {
	t.Helper()
	paths, err := filepath.Glob("../../ci/cmd/labctl/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "Use:") {
			b.Write(src)
		}
	}
	return b.String()
}

// Each labctl subcommand the module runs must define the flags the module
// passes, in its own file or in a shared flag set. A subcommand another
// issue has not written yet is skipped by name.
func TestLabctlDefinesTheFlagsWeUse(t *testing.T) {
	shared := sharedFlagSources(t)
	uses := map[string][][]string{
		"up":       {labcmd.Up("cluster")},
		"test":     {labcmd.Test(labcmd.Suite{Run: "x", Parallel: 2})},
		"plan":     {labcmd.Plan(labcmd.ManifestsDir)},
		"validate": {labcmd.Validate()},
		"images":   {labcmd.BundleIndex(), labcmd.RecordBundleIndex(labcmd.BundleDir)},
	}
	for cmd, lines := range uses {
		t.Run(cmd, func(t *testing.T) {
			path := "../../ci/cmd/labctl/" + cmd + ".go"
			src, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				t.Skipf("labctl %s is not written yet (%s)", cmd, path)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range lines {
				for _, arg := range line {
					if !strings.HasPrefix(arg, "-") {
						continue
					}
					name := strings.TrimLeft(arg, "-")
					if !strings.Contains(string(src)+shared, strconv.Quote(name)) {
						t.Errorf("%s: labctl %s passes %s but %s defines no flag %q", line[1], cmd, arg, path, name)
					}
				}
			}
		})
	}
}
