// Package gobuild builds main packages of a Go module at a pinned version
// in module mode, from the Go module proxy only: a small wrapper module
// requires the upstream module at its version (plus the replaces it needs,
// such as k8s.io/kubernetes's staging modules), `go mod tidy` resolves it
// exactly as the upstream go.mod asks, and `go build` links the commands
// into a cache entry keyed by everything that decides the binaries.
package gobuild

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/imagebuild/cache"
)

// Program is one build: main packages of Module@Version and how to link them.
type Program struct {
	// Name names the cache entry ("kubernetes-v1.37.0").
	Name    string
	Module  string
	Version string
	// Require adds modules the commands live in besides Module (module →
	// version), such as etcdctl's next to etcd's server.
	Require map[string]string
	// Replace pins modules to other published versions (module → version).
	Replace map[string]string
	// Packages are the import paths of the commands to build.
	Packages []string
	// LDFlags is passed as -ldflags.
	LDFlags string
	Tags    []string
	// CGO sets CGO_ENABLED=1 (else 0: static binaries).
	CGO bool
	// Trimpath removes file system paths from the binaries.
	Trimpath bool
	// GoDirective is the wrapper module's go line (the upstream go.mod's).
	GoDirective string
	// Godebug is the wrapper module's godebug line, when upstream has one:
	// only the main module's counts, so it is copied.
	Godebug string
	// Rename renames built binaries (go build's name → the image's).
	Rename map[string]string
	// Tree, when set, is a source tree with its own go.mod to build in
	// (a module no proxy serves at the pinned commit, taken from a git
	// snapshot); Module and Version then only name it, and TreeKey (the
	// commit) stands for its content in the cache key.
	Tree    string
	TreeKey string
	// LocalProxy, when set, is a GOPROXY file tree (a file:// URL) asked
	// before the module proxy: modules the proxy refuses, made from git
	// snapshots and checked against the tree's go.sum by the caller.
	LocalProxy string
	// BuildMode is go build's -buildmode ("c-shared": a C shared library).
	BuildMode string
	// Output, when set, is the one file go build writes into the output
	// directory: a c-shared library is no command named by its package.
	Output string
	// CGOLDFlags and CGOLDFlagsAllow become CGO_LDFLAGS and
	// CGO_LDFLAGS_ALLOW: linker flags cgo refuses unless allowed
	// (--defsym, -soname).
	CGOLDFlags, CGOLDFlagsAllow string
	// Vendored builds Tree from its vendor/ directory (-mod=vendor), as
	// upstream does: no module is downloaded.
	Vendored bool
}

// wrapperModule is the module path of every wrapper; it is never published.
const wrapperModule = "gpu-lab.local/rehearsal/build"

// GoMod is the wrapper module's go.mod before `go mod tidy`.
func (p Program) GoMod() string {
	var b strings.Builder
	fmt.Fprintf(&b, "module %s\n\ngo %s\n", wrapperModule, p.goDirective())
	if p.Godebug != "" {
		fmt.Fprintf(&b, "\ngodebug %s\n", p.Godebug)
	}
	fmt.Fprintf(&b, "\nrequire (\n\t%s %s\n", p.Module, p.Version)
	for _, m := range sortedKeys(p.Require) {
		fmt.Fprintf(&b, "\t%s %s\n", m, p.Require[m])
	}
	b.WriteString(")\n")
	if len(p.Replace) > 0 {
		b.WriteString("\nreplace (\n")
		for _, m := range sortedKeys(p.Replace) {
			fmt.Fprintf(&b, "\t%s => %s %s\n", m, m, p.Replace[m])
		}
		b.WriteString(")\n")
	}
	return b.String()
}

func (p Program) goDirective() string {
	if p.GoDirective == "" {
		return "1.26.0"
	}
	return p.GoDirective
}

// toolsGo imports every command, so `go mod tidy` keeps what they need.
func (p Program) toolsGo() string {
	var b strings.Builder
	b.WriteString("//go:build tools\n\n// Package build only names the commands the rehearsal builds.\npackage build\n\nimport (\n")
	for _, pkg := range p.Packages {
		fmt.Fprintf(&b, "\t_ %q\n", pkg)
	}
	b.WriteString(")\n")
	return b.String()
}

// BuildArgs are the `go build` arguments that write the commands into out.
// -v prints each package compiled: the progress lines count them.
func (p Program) BuildArgs(out string) []string {
	args := []string{"build", "-v", "-o", out + "/" + p.Output}
	if p.BuildMode != "" {
		args = append(args, "-buildmode="+p.BuildMode)
	}
	if p.Trimpath {
		args = append(args, "-trimpath")
	}
	if len(p.Tags) > 0 {
		args = append(args, "-tags", strings.Join(p.Tags, ","))
	}
	if p.LDFlags != "" {
		args = append(args, "-ldflags", p.LDFlags)
	}
	return append(args, p.Packages...)
}

// Env is what the go command runs with besides the caller's environment:
// the wrapper is its own module (no workspace), go.mod is already tidy.
func (p Program) Env() []string {
	cgo := "0"
	if p.CGO {
		cgo = "1"
	}
	env := []string{"CGO_ENABLED=" + cgo, "GOWORK=off", "GOFLAGS=-mod=readonly -buildvcs=false"}
	if p.CGOLDFlags != "" {
		env = append(env, "CGO_LDFLAGS="+p.CGOLDFlags)
	}
	if p.CGOLDFlagsAllow != "" {
		env = append(env, "CGO_LDFLAGS_ALLOW="+p.CGOLDFlagsAllow)
	}
	return env
}

// Key decides the cache entry: the toolchain, the target platform, the
// wrapper module and the build's arguments and environment.
func (p Program) Key(goVersion, goos, goarch string) string {
	parts := []string{goVersion, goos + "/" + goarch, strings.Join(p.Env(), " ")}
	if p.LocalProxy != "" {
		parts = append(parts, "local proxy", p.LocalProxy)
	}
	if p.Tree != "" {
		parts = append(parts, "tree", p.Module, p.Version, p.TreeKey)
	} else {
		parts = append(parts, p.GoMod(), p.toolsGo())
	}
	for _, k := range sortedKeys(p.Rename) {
		parts = append(parts, "rename", k, p.Rename[k])
	}
	return cache.Key(append(parts, p.BuildArgs("OUT")...)...)
}

// Binaries are the file names go build writes.
func (p Program) Binaries() []string {
	if p.Output != "" {
		return []string{p.Output}
	}
	out := make([]string, len(p.Packages))
	for i, pkg := range p.Packages {
		out[i] = binaryName(pkg)
	}
	return out
}

// binaryName is the file go build names a command's binary: the import
// path's last element, or the one before a major version suffix
// ("go.etcd.io/etcd/server/v3" → "server"), as cmd/go's
// load.DefaultExecName does.
func binaryName(pkg string) string {
	elems := strings.Split(pkg, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && isMajorSuffix(last) {
		return elems[len(elems)-2]
	}
	return last
}

func isMajorSuffix(s string) bool {
	if len(s) < 2 || s[0] != 'v' || s[1] == '0' || s[1] == '1' && len(s) == 2 {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ProxyOnly is a GOPROXY list without "direct" and "off": the rehearsal
// reaches modules only through a proxy, never a version-control host.
// An empty result means the default proxy.
func ProxyOnly(goproxy string) string {
	var keep []string
	for _, part := range strings.FieldsFunc(goproxy, func(r rune) bool { return r == ',' || r == '|' }) {
		if part = strings.TrimSpace(part); part != "" && part != "direct" && part != "off" {
			keep = append(keep, part)
		}
	}
	if len(keep) == 0 {
		return "https://proxy.golang.org"
	}
	return strings.Join(keep, ",")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
