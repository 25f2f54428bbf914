package imagebuild

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func seedPlan(t *testing.T) Plan {
	t.Helper()
	l, err := lab.Load("")
	if err != nil {
		t.Fatal(err)
	}
	list, err := images.List(l)
	if err != nil {
		t.Fatal(err)
	}
	return PlanFor(images.Sorted(list))
}

// The seed lab: a v1.37.0 management node, v1.36.4 tenants and workers.
func TestPlanOfTheSeedLab(t *testing.T) {
	p := seedPlan(t)
	if !reflect.DeepEqual(p.Kubernetes, []string{"v1.36.4", "v1.37.0"}) {
		t.Errorf("Kubernetes %v, want [v1.36.4 v1.37.0]", p.Kubernetes)
	}
	var nodes []string
	for _, n := range p.Nodes {
		nodes = append(nodes, localTag(n.Ref))
	}
	if !reflect.DeepEqual(nodes, []string{"kindest/node:v1.37.0", "kindest/node:v1.36.4"}) {
		t.Errorf("nodes %v", nodes)
	}
	kinds := map[kind]int{}
	for _, r := range p.Bundle {
		kinds[r.Kind]++
		if r.Kind == kindNode {
			t.Errorf("node %s in the bundle list", r.Ref)
		}
	}
	if kinds[kindServer] != 3 || kinds[kindKonnectivity] != 2 || kinds[kindCoreDNS] != 1 || kinds[kindQuayEtcd] != 2 {
		t.Errorf("bundle recipes by kind %v", kinds)
	}
}

func TestOnlyKeepsTheNamedImagesAndTheVersions(t *testing.T) {
	p := seedPlan(t).Only([]string{"kindest/node:v1.37.0", "registry.k8s.io/coredns/coredns:v1.14.2"})
	if len(p.Nodes) != 1 || !strings.HasPrefix(p.Nodes[0].Ref, "kindest/node:v1.37.0@") || len(p.Bundle) != 1 ||
		p.Bundle[0].Kind != kindCoreDNS {
		t.Errorf("Only = %+v", p)
	}
	if len(p.Kubernetes) != 2 {
		t.Errorf("Only dropped versions: %v", p.Kubernetes)
	}
	if len(p.Extra) != 0 {
		t.Errorf("Only made extras of listed images: %+v", p.Extra)
	}
	e := seedPlan(t).Only([]string{"registry.k8s.io/etcd:3.7.0-0"})
	if len(e.Nodes)+len(e.Bundle) != 0 || len(e.Extra) != 1 || e.Extra[0].Kind != kindEtcd {
		t.Errorf("Only of a preload = %+v, want one extra etcd", e)
	}
}

// kind's rule (buildcontext.go:215-253): kubeadm's images without its
// pause, then the sandbox image, the CNI and the storage images.
func TestNodePreloadsReplaceKubeadmsPause(t *testing.T) {
	got := nodePreloads(
		[]string{"registry.k8s.io/kube-apiserver:v1.37.0", "registry.k8s.io/pause:3.10.2", "registry.k8s.io/etcd:3.7.0-0"},
		"registry.k8s.io/pause:3.10", []string{"cni:1"}, []string{"st:1", "st:2"})
	want := []string{"registry.k8s.io/kube-apiserver:v1.37.0", "registry.k8s.io/etcd:3.7.0-0", "registry.k8s.io/pause:3.10",
		"cni:1", "st:1", "st:2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NodePreloads = %v, want %v", got, want)
	}
}

func TestParseKubeadmImagesRefusesWhatIsNotAList(t *testing.T) {
	for _, out := range []string{"", "\n", "W1202 warning: something\n", "not-a-ref\n"} {
		if _, err := parseKubeadmImages(out); err == nil {
			t.Errorf("ParseKubeadmImages(%q) gave no error", out)
		}
	}
}

func TestLocalTagDropsTheDigest(t *testing.T) {
	if got := localTag("kindest/node:v1.36.4@sha256:099e"); got != "kindest/node:v1.36.4" {
		t.Errorf("LocalTag = %s", got)
	}
	if got := localTag("registry.k8s.io/pause:3.10"); got != "registry.k8s.io/pause:3.10" {
		t.Errorf("LocalTag = %s", got)
	}
}

func TestNodeFiles(t *testing.T) {
	got, err := NodeFiles([]string{"/h/runc-capfilter:/usr/local/sbin/runc-capfilter", "/h/conf:/etc/x.conf:644"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Src != "/h/runc-capfilter" || got[0].Dest != "/usr/local/sbin/runc-capfilter" || got[0].Mode != 0o755 ||
		got[1].Mode != 0o644 {
		t.Errorf("NodeFiles = %+v", got)
	}
	for _, bad := range []string{"/h/x", "/h/x:relative", ":/x", "/h/x:/y:9z"} {
		if _, err := NodeFiles([]string{bad}); err == nil {
			t.Errorf("NodeFiles(%q) gave no error", bad)
		}
	}
}

// build/pause/Makefile at v1.37.0:49,112: $(TRIPLE)-gcc $(CFLAGS) -o $@ $^
// with one source, linux/pause.c.
func TestPauseCommandNamesTheSourceOnce(t *testing.T) {
	args := pauseCommand(pauseArgs("3.10", "v1.37.0", "/m/build/pause/linux/pause.c"), "/o/pause").Args
	n := 0
	for _, a := range args {
		if strings.HasSuffix(a, "pause.c") {
			n++
		}
	}
	if n != 1 || args[0] != "gcc" || !strings.Contains(strings.Join(args, " "), "-Os -Wall -Werror -static -DVERSION=v3.10-") ||
		args[len(args)-1] != "/o/pause" {
		t.Errorf("pause command = %v", args)
	}
}
