package moduletest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// module is the parsed hand-written source of package main in .dagger.
type module struct {
	fset  *token.FileSet
	files []*ast.File
	funcs map[string]*ast.FuncDecl // "Recv.Name" or "Name"
}

func parseModule(t *testing.T) *module {
	t.Helper()
	m := &module{fset: token.NewFileSet(), funcs: map[string]*ast.FuncDecl{}}
	paths, err := filepath.Glob("../*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") || strings.HasSuffix(p, ".gen.go") {
			continue
		}
		f, err := parser.ParseFile(m.fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		m.files = append(m.files, f)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				m.funcs[funcKey(fd)] = fd
			}
		}
	}
	if len(m.funcs) == 0 {
		t.Fatal("no module source found in ..")
	}
	return m
}

func funcKey(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	return typ.(*ast.Ident).Name + "." + fd.Name.Name
}

// calls lists the names of everything a function calls (the selector or
// identifier being called).
func calls(fd *ast.FuncDecl) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(fd, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			switch f := c.Fun.(type) {
			case *ast.Ident:
				out[f.Name] = true
			case *ast.SelectorExpr:
				out[f.Sel.Name] = true
			}
		}
		return true
	})
	return out
}

// sideEffecting returns the functions that start the Docker service, bind
// it, or open a terminal, directly or through other functions of the module.
func (m *module) sideEffecting() map[string]bool {
	direct := map[string]bool{"WithServiceBinding": true, "Start": true, "Terminal": true}
	byName := map[string][]string{}
	for key, fd := range m.funcs {
		byName[fd.Name.Name] = append(byName[fd.Name.Name], key)
	}
	effect := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for key, fd := range m.funcs {
			if effect[key] {
				continue
			}
			for name := range calls(fd) {
				hit := direct[name]
				for _, callee := range byName[name] {
					if callee != key && effect[callee] {
						hit = true
					}
				}
				if hit {
					effect[key], changed = true, true
					break
				}
			}
		}
	}
	return effect
}

func exportedAPI(key string) bool {
	for _, part := range strings.Split(key, ".") {
		if !ast.IsExported(part) {
			return false
		}
	}
	return true
}

func hasPragma(fd *ast.FuncDecl, pragma string) bool {
	return fd.Doc != nil && strings.Contains(fd.Doc.Text(), pragma)
}

// Every exported function that acts on the Docker service must never be
// answered from Dagger's function cache, or a second run would replay old
// results without building anything.
func TestSideEffectingFunctionsAreNeverCached(t *testing.T) {
	m := parseModule(t)
	effect := m.sideEffecting()
	var api []string
	for key := range effect {
		if exportedAPI(key) {
			api = append(api, key)
		}
	}
	sort.Strings(api)
	for _, want := range []string{"GpuLab.LabTest", "Lab.Terminal", "Lab.Test", "Lab.State"} {
		if !effect[want] {
			t.Errorf("%s does not reach the Docker service according to the call graph; the analysis is broken", want)
		}
	}
	for _, key := range api {
		if !hasPragma(m.funcs[key], `+cache="never"`) {
			t.Errorf(`%s acts on the Docker service but lacks // +cache="never"`, key)
		}
	}
	t.Logf("side-effecting API: %s", strings.Join(api, ", "))
}

// plan, validate and manifests are documented as needing no Docker.
func TestPlanAndValidateNeedNoDocker(t *testing.T) {
	m := parseModule(t)
	effect := m.sideEffecting()
	for _, key := range []string{"Lab.Plan", "Lab.Validate", "Lab.Manifests", "GpuLab.CheckReports", "GpuLab.Labctl"} {
		if _, ok := m.funcs[key]; !ok {
			t.Errorf("%s is missing", key)
			continue
		}
		if effect[key] {
			t.Errorf("%s reaches the Docker service; it must work without one", key)
		}
	}
}

// Every container bound to the service carries the per-run nonce.
func TestServiceBindingCarriesNonce(t *testing.T) {
	m := parseModule(t)
	bound := 0
	for key, fd := range m.funcs {
		c := calls(fd)
		if !c["WithServiceBinding"] {
			continue
		}
		bound++
		usesNonceEnv, callsNonce := false, c["nonce"]
		ast.Inspect(fd, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok && s.Sel.Name == "NonceEnv" {
				usesNonceEnv = true
			}
			return true
		})
		if !usesNonceEnv || !callsNonce {
			t.Errorf("%s binds the Docker service without setting labcmd.NonceEnv to nonce()", key)
		}
	}
	if bound == 0 {
		t.Fatal("no function binds the Docker service")
	}
}

// The doc comments are the CLI help: the package, every exported function,
// every argument but ctx, and every exported field must have one.
func TestEverythingIsDocumented(t *testing.T) {
	m := parseModule(t)
	pkgDoc := false
	for _, f := range m.files {
		if f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != "" {
			pkgDoc = true
		}
		comments := map[int]bool{} // lines on which a comment ends
		for _, cg := range f.Comments {
			comments[m.fset.Position(cg.End()).Line] = true
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				key := funcKey(d)
				if !exportedAPI(key) {
					continue
				}
				if d.Doc == nil {
					t.Errorf("%s has no doc comment", key)
				}
				for _, p := range d.Type.Params.List {
					if sel, ok := p.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Context" {
						continue
					}
					line := m.fset.Position(p.Pos()).Line
					if !comments[line-1] {
						for _, n := range p.Names {
							t.Errorf("%s: argument %s has no doc comment", key, n.Name)
						}
					}
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					if d.Doc == nil && ts.Doc == nil {
						t.Errorf("type %s has no doc comment", ts.Name.Name)
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, fld := range st.Fields.List {
						if fld.Doc == nil {
							t.Errorf("%s.%s has no doc comment (or +private)", ts.Name.Name, fld.Names[0].Name)
						}
					}
				}
			}
		}
	}
	if !pkgDoc {
		t.Error("package main has no package comment (the module description)")
	}
}

func TestNewIgnoresLocalState(t *testing.T) {
	m := parseModule(t)
	fd, ok := m.funcs["New"]
	if !ok {
		t.Fatal("no constructor New")
	}
	var text string
	for _, f := range m.files {
		for _, cg := range f.Comments {
			if cg.Pos() > fd.Pos() && cg.End() < fd.End() {
				text += cg.Text()
			}
		}
	}
	for _, want := range []string{`+defaultPath="/"`, `".git"`, `"reports"`, `".lab"`} {
		if !strings.Contains(text, want) {
			t.Errorf("New's source argument lacks %s", want)
		}
	}
}

func TestGeneratedBindingsAreCommitted(t *testing.T) {
	for _, p := range []string{"../dagger.gen.go", "../internal/dagger/dagger.gen.go"} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v (run .dagger/hack/codegen.sh)", p, err)
		}
	}
}
