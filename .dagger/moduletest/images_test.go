package moduletest

import (
	"go/ast"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"dagger/gpu-lab/labcmd"
)

// The module fetches images through Dagger's cache: bundle() asks labctl for
// the list, pulls each reference with From, exports it with AsTarball, and
// touches no Docker service (so Dagger may cache all of it); start() mounts
// the bundle where labcmd.Up's --images points.
func TestImagesComeThroughDaggersCache(t *testing.T) {
	m := parseModule(t)
	b, ok := m.funcs["Lab.bundle"]
	if !ok {
		t.Fatal("Lab.bundle is missing")
	}
	c := calls(b)
	for _, want := range []string{"BundleIndex", "ParseBundleIndex", "From", "AsTarball", "WithFile", "Sync"} {
		if !c[want] {
			t.Errorf("Lab.bundle does not call %s", want)
		}
	}
	if m.sideEffecting()["Lab.bundle"] {
		t.Error("Lab.bundle reaches the Docker service; fetching images must not")
	}
	start := m.funcs["Lab.start"]
	mounted := false
	ast.Inspect(start, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "WithMountedDirectory" && len(call.Args) == 2 {
				if arg, ok := call.Args[0].(*ast.SelectorExpr); ok && arg.Sel.Name == "BundleDir" {
					mounted = true
				}
			}
		}
		return true
	})
	if !mounted || !calls(start)["bundle"] {
		t.Error("Lab.start does not mount the fetched bundle at labcmd.BundleDir")
	}
	up := labcmd.Up("cluster")
	if i := indexOf(up, "--images"); i < 0 || up[i+1] != labcmd.BundleDir {
		t.Errorf("labcmd.Up = %q: the stages do not get the bundle", up)
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// labcmd's view of the index is labctl's: the same file name and JSON keys
// as ci/images (Entry, IndexFile).
func TestBundleIndexMatchesLabctl(t *testing.T) {
	f := parseRoot(t, "ci/images/bundle.go")
	var keys []string
	var indexFile string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeSpec:
			if n.Name.Name != "Entry" {
				return true
			}
			for _, fld := range n.Type.(*ast.StructType).Fields.List {
				tag, _ := strconv.Unquote(fld.Tag.Value)
				name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
				keys = append(keys, name)
			}
		case *ast.ValueSpec:
			if n.Names[0].Name == "IndexFile" && len(n.Values) == 1 {
				indexFile, _ = stringLit(n.Values[0])
			}
		}
		return true
	})
	if len(keys) < 2 || keys[0] != "ref" || keys[1] != "file" {
		t.Errorf("ci/images.Entry JSON keys = %q, labcmd.BundleEntry reads ref and file", keys)
	}
	if indexFile != labcmd.BundleIndexFile {
		t.Errorf("ci/images.IndexFile = %q, labcmd.BundleIndexFile = %q", indexFile, labcmd.BundleIndexFile)
	}
}
