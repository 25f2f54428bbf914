package gobuild

import (
	"strings"
	"testing"
)

func TestGoModRequiresTheModuleAndPinsReplaces(t *testing.T) {
	p := Program{
		Module: "k8s.io/kubernetes", Version: "v1.37.0",
		Require:     map[string]string{"example.com/b": "v1.0.0", "example.com/a": "v2.0.0"},
		Replace:     map[string]string{"k8s.io/api": "v0.37.0", "k8s.io/apimachinery": "v0.37.0"},
		GoDirective: "1.26.0", Godebug: "default=go1.26",
	}
	want := `module gpu-lab.local/rehearsal/build

go 1.26.0

godebug default=go1.26

require (
	k8s.io/kubernetes v1.37.0
	example.com/a v2.0.0
	example.com/b v1.0.0
)

replace (
	k8s.io/api => k8s.io/api v0.37.0
	k8s.io/apimachinery => k8s.io/apimachinery v0.37.0
)
`
	if got := p.GoMod(); got != want {
		t.Errorf("GoMod =\n%s\nwant\n%s", got, want)
	}
}

func TestToolsGoImportsEveryCommand(t *testing.T) {
	p := Program{Packages: []string{"k8s.io/kubernetes/cmd/kubelet", "k8s.io/kubernetes/cmd/kubeadm"}}
	got := p.toolsGo()
	for _, w := range []string{"//go:build tools", `_ "k8s.io/kubernetes/cmd/kubelet"`, `_ "k8s.io/kubernetes/cmd/kubeadm"`} {
		if !strings.Contains(got, w) {
			t.Errorf("tools.go lacks %q:\n%s", w, got)
		}
	}
}

func TestBuildArgsAndEnv(t *testing.T) {
	p := Program{Packages: []string{"a/cmd/x"}, LDFlags: "-s -w", Tags: []string{"selinux", "notest"}, Trimpath: true}
	got := strings.Join(p.BuildArgs("/out"), " ")
	if want := "build -v -o /out/ -trimpath -tags selinux,notest -ldflags -s -w a/cmd/x"; got != want {
		t.Errorf("BuildArgs = %q, want %q", got, want)
	}
	if env := strings.Join(p.Env(), " "); !strings.Contains(env, "CGO_ENABLED=0") {
		t.Errorf("a static build's env %q lacks CGO_ENABLED=0", env)
	}
	p.CGO = true
	if env := strings.Join(p.Env(), " "); !strings.Contains(env, "CGO_ENABLED=1") {
		t.Errorf("a cgo build's env %q lacks CGO_ENABLED=1", env)
	}
}

// Everything that changes the binaries changes the key; nothing else does.
func TestKeyFollowsWhatDecidesTheBinaries(t *testing.T) {
	base := Program{Name: "x", Module: "m", Version: "v1.0.0", Packages: []string{"m/cmd/x"}, LDFlags: "-s"}
	k := base.Key("go1.26.8", "linux", "amd64")
	if k != base.Key("go1.26.8", "linux", "amd64") {
		t.Fatal("the key is not stable")
	}
	changed := map[string]string{
		"go version": base.Key("go1.26.9", "linux", "amd64"),
		"arch":       base.Key("go1.26.8", "linux", "arm64"),
	}
	for name, mut := range map[string]func(*Program){
		"version": func(p *Program) { p.Version = "v1.0.1" },
		"ldflags": func(p *Program) { p.LDFlags = "-s -w" },
		"cgo":     func(p *Program) { p.CGO = true },
		"tags":    func(p *Program) { p.Tags = []string{"t"} },
		"replace": func(p *Program) { p.Replace = map[string]string{"a": "v1"} },
		"rename":  func(p *Program) { p.Rename = map[string]string{"x": "y"} },
		"tree":    func(p *Program) { p.Tree, p.TreeKey = "/src", "abc" },
	} {
		p := base
		mut(&p)
		changed[name] = p.Key("go1.26.8", "linux", "amd64")
	}
	for name, got := range changed {
		if got == k {
			t.Errorf("changing the %s keeps the key %s", name, k)
		}
	}
}

func TestBinaryNameDropsAMajorVersionSuffix(t *testing.T) {
	for pkg, want := range map[string]string{
		"go.etcd.io/etcd/server/v3":                      "server",
		"go.etcd.io/etcd/etcdctl/v3":                     "etcdctl",
		"k8s.io/kubernetes/cmd/kubelet":                  "kubelet",
		"github.com/coredns/coredns":                     "coredns",
		"example.com/tools/v1":                           "v1",
		"example.com/v0":                                 "v0",
		"example.com/x/v10":                              "x",
		"./cmd/kindnetd":                                 "kindnetd",
		"sigs.k8s.io/apiserver-network-proxy/cmd/server": "server",
	} {
		if got := binaryName(pkg); got != want {
			t.Errorf("BinaryName(%q) = %q, want %q", pkg, got, want)
		}
	}
}

func TestProxyOnlyNeverFallsBackToDirect(t *testing.T) {
	for in, want := range map[string]string{
		"https://proxy.golang.org,direct":            "https://proxy.golang.org",
		"https://a.example|https://b.example,direct": "https://a.example,https://b.example",
		"direct": "https://proxy.golang.org",
		"off":    "https://proxy.golang.org",
		"":       "https://proxy.golang.org",
	} {
		if got := ProxyOnly(in); got != want {
			t.Errorf("ProxyOnly(%q) = %q, want %q", in, got, want)
		}
	}
}

// A C shared library: one named output file, the build mode, and the
// linker flags cgo refuses unless CGO_LDFLAGS_ALLOW lets them through.
func TestCSharedBuild(t *testing.T) {
	p := Program{
		Packages: []string{"./pkg/lib/bridge"}, CGO: true, BuildMode: "c-shared", Output: "libx.so.1.2",
		CGOLDFlags: "-Wl,--defsym,a=b -Wl,-soname,libx.so.1", CGOLDFlagsAllow: "--defsym|-soname",
	}
	if got, want := strings.Join(p.BuildArgs("/out"), " "), "build -v -o /out/libx.so.1.2 -buildmode=c-shared ./pkg/lib/bridge"; got != want {
		t.Errorf("BuildArgs = %q, want %q", got, want)
	}
	env := strings.Join(p.Env(), "\n")
	for _, w := range []string{"CGO_ENABLED=1", "CGO_LDFLAGS=-Wl,--defsym,a=b -Wl,-soname,libx.so.1", "CGO_LDFLAGS_ALLOW=--defsym|-soname"} {
		if !strings.Contains(env, w) {
			t.Errorf("env lacks %q:\n%s", w, env)
		}
	}
	if b := p.Binaries(); len(b) != 1 || b[0] != "libx.so.1.2" {
		t.Errorf("Binaries = %v, want the output file", b)
	}
	// A command build keeps writing into the directory.
	if got := (Program{Packages: []string{"a/cmd/x"}}).BuildArgs("/out")[3]; got != "/out/" {
		t.Errorf("a command build's -o is %q, want the directory /out/", got)
	}
}
