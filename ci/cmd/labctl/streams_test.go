package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandsTakeStreams: every command constructor (newXCommand, as
// kind's NewCommand(logger, streams)) takes labctl's streams, nothing but
// osStreams names the process's own, and no command asks cobra for them
// (cmd.OutOrStdout and friends fall back to the process's streams when a
// command is built alone).
func TestCommandsTakeStreams(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	constructors := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "new") && strings.HasSuffix(fd.Name.Name, "Command") {
				constructors++
				if !takesStreams(fd) {
					t.Errorf("%s: %s does not take streams", fset.Position(fd.Pos()), fd.Name.Name)
				}
			}
			ast.Inspect(fd, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				switch sel.Sel.Name {
				case "Stdin", "Stdout", "Stderr":
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" && fd.Name.Name != "osStreams" {
						t.Errorf("%s: %s uses os.%s; write to its streams", fset.Position(sel.Pos()), fd.Name.Name, sel.Sel.Name)
					}
				case "OutOrStdout", "ErrOrStderr", "InOrStdin", "OutOrStderr":
					t.Errorf("%s: %s asks cobra for %s; use its streams", fset.Position(sel.Pos()), fd.Name.Name, sel.Sel.Name)
				}
				return true
			})
		}
	}
	// labctl has some twenty commands; fewer means the scan found nothing.
	if constructors < 15 {
		t.Fatalf("only %d command constructors found", constructors)
	}
}

func takesStreams(fd *ast.FuncDecl) bool {
	for _, p := range fd.Type.Params.List {
		if id, ok := p.Type.(*ast.Ident); ok && id.Name == "streams" {
			return true
		}
	}
	return false
}
