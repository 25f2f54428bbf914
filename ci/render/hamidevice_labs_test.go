package render

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// repositoryLabs are the labs the repository's tests run: the seed lab, this
// package's three-tenant lab, and every lab file written as a string
// constant in the end-to-end tests (ci/test/e2e), read from their source so a lab
// added there is covered here without being typed twice.
func repositoryLabs(t *testing.T) map[string]*lab.Lab {
	t.Helper()
	out := testLabs(t)
	files, err := filepath.Glob(filepath.Join("..", "test", "e2e", "*_test.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no end-to-end test sources in ../test/e2e: %v", err)
	}
	fset := token.NewFileSet()
	found := 0
	for _, f := range files {
		src, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range src.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					bl, ok := v.(*ast.BasicLit)
					if !ok || bl.Kind != token.STRING {
						continue
					}
					text, err := strconv.Unquote(bl.Value)
					if err != nil || !strings.Contains(text, "\ntenants:") {
						continue
					}
					l, err := lab.Parse([]byte(text))
					if err != nil {
						t.Fatalf("%s: const %s is not a valid lab: %v", f, vs.Names[i].Name, err)
					}
					out["e2e/"+vs.Names[i].Name] = l
					found++
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("found no lab constant in ../test/e2e: the end-to-end labs moved; update repositoryLabs")
	}
	return out
}
