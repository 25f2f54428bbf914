package nodeimage

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
)

// KindModuleVersion is the kind release whose node layout the rehearsal's
// node image reproduces (ci/lab KindModuleVersion).
const KindModuleVersion = "v0.33.0"

// KindFiles are what the node image takes from the kind module at build
// time, read from the module cache (`go mod download sigs.k8s.io/kind@
// v0.33.0`), never copied into this repository:
//   - the entrypoint (images/base/files/usr/local/bin/entrypoint, 574
//     lines of cgroup, mount, DNS and product-uuid fix-ups kind's node
//     lifecycle depends on: rewriting it would be a second, untested
//     implementation of kind) and the /kind/bin scripts its units call;
//   - the default CNI and storage manifests, which kind writes into every
//     node image from Go constants (pkg/build/nodeimage/const_cni.go:28
//     defaultCNIManifest, const_storage.go:35 defaultStorageManifest) and
//     reads back when it creates a cluster (pkg/cluster/internal/create/
//     actions/installcni/cni.go:59, installstorage/storage.go:85).
type KindFiles struct {
	Entrypoint           string            // host path
	Scripts              map[string]string // /kind/bin/<name> → host path
	CNIManifest          string
	StorageManifest      string
	CNIImages            []string // kindnetd (const_cni.go:23-25)
	StorageImages        []string // local-path provisioner and helper (const_storage.go:29-33)
	ContainerdConfigPath string
}

// ReadKindFiles reads them from kind's module directory dir.
func ReadKindFiles(dir string) (KindFiles, error) {
	base := filepath.Join(dir, "images", "base", "files")
	kf := KindFiles{
		Entrypoint: filepath.Join(base, "usr", "local", "bin", "entrypoint"),
		Scripts:    map[string]string{},
	}
	for _, s := range []string{"create-kubelet-cgroup-v2.sh", "mount-product-files.sh", "undo-mount-hacks.sh"} {
		kf.Scripts[s] = filepath.Join(base, "kind", "bin", s)
	}
	for _, p := range append([]string{kf.Entrypoint}, mapValues(kf.Scripts)...) {
		if _, err := os.Stat(p); err != nil {
			return KindFiles{}, fmt.Errorf("kind %s module at %s: %w", KindModuleVersion, dir, err)
		}
	}
	nodeimage := filepath.Join(dir, "pkg", "build", "nodeimage")
	cni, err := goConsts(filepath.Join(nodeimage, "const_cni.go"))
	if err != nil {
		return KindFiles{}, err
	}
	storage, err := goConsts(filepath.Join(nodeimage, "const_storage.go"))
	if err != nil {
		return KindFiles{}, err
	}
	var ok bool
	if kf.CNIManifest, ok = cni.strings["defaultCNIManifest"]; !ok {
		return KindFiles{}, fmt.Errorf("kind %s const_cni.go: no defaultCNIManifest constant", KindModuleVersion)
	}
	if kf.StorageManifest, ok = storage.strings["defaultStorageManifest"]; !ok {
		return KindFiles{}, fmt.Errorf("kind %s const_storage.go: no defaultStorageManifest constant", KindModuleVersion)
	}
	kf.CNIImages = cni.lists["defaultCNIImages"]
	kf.StorageImages = storage.lists["defaultStorageImages"]
	if len(kf.CNIImages) == 0 || len(kf.StorageImages) == 0 {
		return KindFiles{}, fmt.Errorf("kind %s: defaultCNIImages or defaultStorageImages not found", KindModuleVersion)
	}
	return kf, nil
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// consts are a Go file's string constants (literals, concatenations and
// other constants of the file) and its []string variables of them.
type consts struct {
	strings map[string]string
	lists   map[string][]string
}

// goConsts evaluates a file's top-level string constants and []string
// variables, as far as they are made of literals, + and each other.
func goConsts(path string) (consts, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return consts{}, fmt.Errorf("read kind constants: %w", err)
	}
	c := consts{strings: map[string]string{}, lists: map[string][]string{}}
	var eval func(e ast.Expr) (string, bool)
	eval = func(e ast.Expr) (string, bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind != token.STRING {
				return "", false
			}
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		case *ast.Ident:
			s, ok := c.strings[e.Name]
			return s, ok
		case *ast.BinaryExpr:
			if e.Op != token.ADD {
				return "", false
			}
			l, ok1 := eval(e.X)
			r, ok2 := eval(e.Y)
			return l + r, ok1 && ok2
		case *ast.ParenExpr:
			return eval(e.X)
		}
		return "", false
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || (g.Tok != token.CONST && g.Tok != token.VAR) {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.CompositeLit); ok {
					var list []string
					for _, el := range lit.Elts {
						if s, ok := eval(el); ok {
							list = append(list, s)
						}
					}
					c.lists[name.Name] = list
					continue
				}
				if s, ok := eval(vs.Values[i]); ok {
					c.strings[name.Name] = s
				}
			}
		}
	}
	return c, nil
}
