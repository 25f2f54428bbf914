package internal_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// narrowPackages export only what another package uses: each exported
// function, constant and variable is referred to by some other package of
// the repository — labctl, ci/hack/rehearse, another package's tests, or
// the Dagger module in .dagger — so its surface is what its callers need.
// A directory ending in /... counts every package below it.
var narrowPackages = []string{
	"ci/docker",
	"ci/gpus",
	"ci/lab",
	"ci/hack/rehearsal/chartbuild",
	"ci/hack/rehearsal/hostdaemon",
	"ci/hack/rehearsal/imagebuild/...",
	"ci/hack/rehearsal/registry",
	"ci/hack/rehearsal/run",
	"ci/render",
	"ci/stages",
	"ci/stages/internal/...",
	"ci/suite",
	"ci/testenv",
	"ci/testenv/hamidouble",
}

// goFile is one parsed Go file and whether it is a test file.
type goFile struct {
	*ast.File
	test bool
}

// goDirs are the directories of the repository holding Go files, parsed,
// keyed by their path from the repository root. testdata and hidden
// directories are skipped, but for .dagger, the Dagger module.
func goDirs(t *testing.T, root string) map[string][]goFile {
	t.Helper()
	fset := token.NewFileSet()
	dirs := map[string][]goFile{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && rel != ".dagger" && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		dirs[dir] = append(dirs[dir], goFile{f, strings.HasSuffix(path, "_test.go")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// narrow reports whether dir is one of narrowPackages.
func narrow(dir string) bool {
	for _, p := range narrowPackages {
		if dir == p || strings.HasSuffix(p, "/...") &&
			(dir == strings.TrimSuffix(p, "/...") || strings.HasPrefix(dir, strings.TrimSuffix(p, "...")) && !strings.Contains(dir, "/testdata/")) {
			return true
		}
	}
	return false
}

// exported is one exported package-level name: its kind and the names of
// the package's own types its surface refers to — a function's signature,
// a typed constant's or variable's type, a type's definition (only the
// exported fields of a struct) and its exported methods' signatures.
type exported struct {
	kind string
	refs []string
}

// identsIn are the unqualified identifiers in the expressions: for a type
// expression, the names of the package's own types it refers to (and of
// predeclared ones, which match nothing).
func identsIn(exprs ...ast.Expr) []string {
	var out []string
	for _, e := range exprs {
		if e == nil {
			continue
		}
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				return false // another package's name
			case *ast.Ident:
				out = append(out, n.Name)
			}
			return true
		})
	}
	return out
}

// fieldTypes are the types of the fields in the list; with exportedOnly,
// of the exported and embedded ones only.
func fieldTypes(l *ast.FieldList, exportedOnly bool) []ast.Expr {
	var out []ast.Expr
	if l == nil {
		return nil
	}
	for _, f := range l.List {
		keep := !exportedOnly || len(f.Names) == 0
		for _, n := range f.Names {
			keep = keep || n.IsExported()
		}
		if keep {
			out = append(out, f.Type)
		}
	}
	return out
}

// typeSurface is what a type definition shows another package.
func typeSurface(e ast.Expr) []string {
	switch t := e.(type) {
	case *ast.StructType:
		return identsIn(fieldTypes(t.Fields, true)...)
	case *ast.InterfaceType:
		return identsIn(fieldTypes(t.Methods, true)...)
	}
	return identsIn(e)
}

// firstValue is the spec's first value, without a leading &.
func firstValue(s *ast.ValueSpec) ast.Expr {
	if len(s.Values) == 0 {
		return nil
	}
	if u, ok := s.Values[0].(*ast.UnaryExpr); ok && u.Op == token.AND {
		return u.X
	}
	return s.Values[0]
}

// exportedNames are the exported functions, types, constants and
// variables the package's non-test files declare, with their surfaces.
func exportedNames(files []goFile) map[string]*exported {
	out := map[string]*exported{}
	methods := map[string][]string{} // receiver type → its exported methods' surfaces
	for _, f := range files {
		if f.test || f.Name.Name == "main" {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				sig := identsIn(append(fieldTypes(d.Type.Params, false), fieldTypes(d.Type.Results, false)...)...)
				if d.Recv == nil && d.Name.IsExported() {
					out[d.Name.Name] = &exported{kind: "func", refs: sig}
				} else if d.Recv != nil && d.Name.IsExported() {
					for _, r := range identsIn(d.Recv.List[0].Type) {
						methods[r] = append(methods[r], sig...)
					}
				}
			case *ast.GenDecl:
				var last ast.Expr // an iota group's later constants keep the first type
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							out[s.Name.Name] = &exported{kind: "type", refs: typeSurface(s.Type)}
						}
					case *ast.ValueSpec:
						if s.Type != nil || len(s.Values) > 0 {
							last = s.Type
						}
						if lit, ok := firstValue(s).(*ast.CompositeLit); ok && s.Type == nil {
							last = lit.Type // var X = map[string]T{…}
						}
						for _, n := range s.Names {
							if n.IsExported() {
								out[n.Name] = &exported{kind: d.Tok.String(), refs: identsIn(last)}
							}
						}
					}
				}
			}
		}
	}
	for recv, refs := range methods {
		if e := out[recv]; e != nil {
			e.refs = append(e.refs, refs...)
		}
	}
	return out
}

// TestExportsAreUsed: every exported function, constant and variable of a
// package in narrowPackages is used by another package; what only the
// package itself (or its own tests) uses is unexported. Uses are found by
// syntax — pkg.Name where pkg is the file's name for the import — which
// is exact for package-level names: another package can reach them no
// other way (no listed package is dot-imported: that fails the test).
func TestExportsAreUsed(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	module := strings.TrimSuffix(module, "/")
	dirs := goDirs(t, root)
	names := map[string]string{}                  // import path → package name
	declared := map[string]map[string]*exported{} // import path → name → declaration
	for dir, files := range dirs {
		if !narrow(dir) {
			continue
		}
		path := module + "/" + dir
		for _, f := range files {
			if !f.test {
				names[path] = f.Name.Name
			}
		}
		declared[path] = exportedNames(files)
	}
	if len(declared) < len(narrowPackages) {
		t.Fatalf("found %d of the packages in narrowPackages: %v", len(declared), declared)
	}
	used := map[string]bool{} // "import path.Name"
	for dir, files := range dirs {
		self := module + "/" + dir
		for _, f := range files {
			local := map[string]string{} // name in the file → import path
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if _, ok := declared[p]; !ok || p == self {
					continue
				}
				name := names[p]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				if name == "." {
					t.Errorf("%s dot-imports %s: its uses cannot be told", dir, p)
				}
				local[name] = p
			}
			if len(local) == 0 {
				continue
			}
			ast.Inspect(f.File, func(n ast.Node) bool {
				if s, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := s.X.(*ast.Ident); ok && local[id.Name] != "" {
						used[local[id.Name]+"."+s.Sel.Name] = true
					}
				}
				return true
			})
		}
	}
	// What another package names is needed, and so is every type the
	// surface of a needed name shows.
	var work []string
	for u := range used {
		work = append(work, u)
	}
	for len(work) > 0 {
		u := work[len(work)-1]
		work = work[:len(work)-1]
		i := strings.LastIndex(u, ".")
		p := u[:i]
		e := declared[p][u[i+1:]]
		if e == nil {
			continue
		}
		for _, r := range e.refs {
			if declared[p][r] != nil && !used[p+"."+r] {
				used[p+"."+r] = true
				work = append(work, p+"."+r)
			}
		}
	}
	var unused []string
	for p, decl := range declared {
		for n, e := range decl {
			if !used[p+"."+n] {
				unused = append(unused, e.kind+" "+strings.TrimPrefix(p, module+"/")+"."+n)
			}
		}
	}
	sort.Strings(unused)
	for _, u := range unused {
		t.Errorf("%s is exported but no other package uses it: unexport it", u)
	}
}
