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
		if dir == p || strings.HasSuffix(p, "/...") && (dir == strings.TrimSuffix(p, "/...") || strings.HasPrefix(dir, strings.TrimSuffix(p, "...")) && !strings.Contains(dir, "/testdata/")) {
			return true
		}
	}
	return false
}

// exportedValues are the exported functions (not methods), constants and
// variables the package's non-test files declare, with where.
func exportedValues(files []goFile) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		if f.test || f.Name.Name == "main" {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					out[d.Name.Name] = "func"
				}
			case *ast.GenDecl:
				if d.Tok != token.CONST && d.Tok != token.VAR {
					continue
				}
				for _, s := range d.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						if n.IsExported() {
							out[n.Name] = d.Tok.String()
						}
					}
				}
			}
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
	names := map[string]string{}               // import path → package name
	declared := map[string]map[string]string{} // import path → name → kind
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
		declared[path] = exportedValues(files)
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
	var unused []string
	for p, decl := range declared {
		for n, kind := range decl {
			if !used[p+"."+n] {
				unused = append(unused, kind+" "+strings.TrimPrefix(p, module+"/")+"."+n)
			}
		}
	}
	sort.Strings(unused)
	for _, u := range unused {
		t.Errorf("%s is exported but no other package uses it: unexport it", u)
	}
}
