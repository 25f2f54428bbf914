package state

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNothingElseJoinsStatePaths: Dir owns the state dir's layout. No
// non-test file of ci/ outside this package spells one of its names, or
// joins a path onto a state dir converted to a string (string(e.State),
// string(d) with d a Dir, as down.go, cluster.go and runner.go used to).
func TestNothingElseJoinsStatePaths(t *testing.T) {
	names := map[string]bool{}
	for _, n := range []string{markerFile, labFile, KubeconfigsDir, StagesFile, serverVersionFile, lockFile} {
		names[n] = true
	}
	var bad []string
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.IsDir() {
			if p == "." || de.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.HasPrefix(p, "../state/") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && names[strings.Trim(s, "/")] {
					bad = append(bad, fset.Position(n.Pos()).String()+": spells "+n.Value)
				}
			case *ast.CallExpr:
				if fn, ok := n.Fun.(*ast.SelectorExpr); ok && fn.Sel.Name == "Join" {
					for _, a := range n.Args {
						if isStateString(a) {
							bad = append(bad, fset.Position(n.Pos()).String()+": joins a path onto the state dir")
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("outside ci/state (use a state.Dir method):\n%s", strings.Join(bad, "\n"))
	}
}

// isStateString is string(x.State) or string(state.Dir(...)).
func isStateString(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok || len(c.Args) != 1 {
		return false
	}
	if id, ok := c.Fun.(*ast.Ident); !ok || id.Name != "string" {
		return false
	}
	switch a := c.Args[0].(type) {
	case *ast.SelectorExpr:
		return a.Sel.Name == "State" || a.Sel.Name == "stateDir"
	case *ast.CallExpr:
		s, ok := a.Fun.(*ast.SelectorExpr)
		return ok && s.Sel.Name == "Dir"
	}
	return false
}
