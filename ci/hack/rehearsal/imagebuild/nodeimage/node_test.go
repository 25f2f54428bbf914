package nodeimage

import (
	"reflect"
	"strings"
	"testing"
)

func TestContainerdConfigSandboxAndRuncHook(t *testing.T) {
	plain := ContainerdConfig(ContainerdOptions{SandboxImage: "registry.k8s.io/pause:3.10"})
	for _, w := range []string{
		"version = 2",
		`sandbox_image = "registry.k8s.io/pause:3.10"`,
		`[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]`,
		`runtime_type = "io.containerd.runc.v2"`,
		`base_runtime_spec = "/etc/containerd/cri-base.json"`,
		"SystemdCgroup = true",
		`snapshotter = "overlayfs"`,
	} {
		if !strings.Contains(plain, w) {
			t.Errorf("config lacks %q:\n%s", w, plain)
		}
	}
	if strings.Contains(plain, "BinaryName") {
		t.Errorf("config without a runc wrapper names a BinaryName:\n%s", plain)
	}
	hooked := ContainerdConfig(ContainerdOptions{SandboxImage: "p", RuncBinary: "/usr/local/sbin/runc-capfilter"})
	if n := strings.Count(hooked, `BinaryName = "/usr/local/sbin/runc-capfilter"`); n != 2 {
		t.Errorf("BinaryName set for %d runtimes, want 2 (runc, test-handler):\n%s", n, hooked)
	}
}

// What kind's node image build puts where (buildcontext.go:100-133, the
// base Dockerfile's units).
func TestBaseSpecLaysOutTheNode(t *testing.T) {
	in := Inputs{
		Version: "v1.37.0", BinDir: "/bin37", Crictl: "/c/crictl",
		Kind: KindFiles{Entrypoint: "/k/entrypoint", Scripts: map[string]string{"a.sh": "/k/a.sh"}, CNIManifest: "cni",
			StorageManifest: "st"},
		Containerd: ContainerdOptions{SandboxImage: "registry.k8s.io/pause:3.10"},
	}
	s := BaseSpec("gpu-lab-rehearsal/node-base:v1.37.0", "rootfs:k", in)
	got := map[string]string{}
	for _, f := range s.Files {
		got[f.Dest] = f.Src + string(f.Data)
	}
	for dest, want := range map[string]string{
		"/usr/bin/kubelet":                     "/bin37/kubelet",
		"/usr/bin/kubeadm":                     "/bin37/kubeadm",
		"/usr/bin/kubectl":                     "/bin37/kubectl",
		"/usr/local/bin/crictl":                "/c/crictl",
		"/usr/local/bin/entrypoint":            "/k/entrypoint",
		"/kind/bin/a.sh":                       "/k/a.sh",
		"/kind/version":                        "v1.37.0",
		"/kind/manifests/default-cni.yaml":     "cni",
		"/kind/manifests/default-storage.yaml": "st",
	} {
		if got[dest] != want {
			t.Errorf("%s = %q, want %q", dest, got[dest], want)
		}
	}
	for _, dest := range []string{"/etc/containerd/config.toml", "/etc/systemd/system/kubelet.service",
		"/etc/systemd/system/kubelet.service.d/10-kubeadm.conf", "/etc/systemd/system/containerd.service"} {
		if got[dest] == "" {
			t.Errorf("no %s", dest)
		}
	}
	if !reflect.DeepEqual(s.Entrypoint, []string{"/usr/local/bin/entrypoint", "/sbin/init"}) || s.StopSignal != "SIGRTMIN+3" {
		t.Errorf("entrypoint %v, stop signal %s", s.Entrypoint, s.StopSignal)
	}
	if !strings.Contains(strings.Join(s.Run, "\n"), "systemctl enable kubelet.service containerd.service") {
		t.Errorf("the units are not enabled: %v", s.Run)
	}
}

func TestExtraFilesComeLast(t *testing.T) {
	in := Inputs{Kind: KindFiles{Scripts: map[string]string{}}}
	in.Extra = append(in.Extra, BaseSpec("r", "b", in).Files[0])
	in.Extra[0].Dest = "/usr/local/sbin/runc-capfilter"
	s := BaseSpec("r", "b", in)
	if last := s.Files[len(s.Files)-1]; last.Dest != "/usr/local/sbin/runc-capfilter" {
		t.Errorf("last file %s, want the extra one", last.Dest)
	}
}

func TestMissingComparesNormalizedNames(t *testing.T) {
	have := []string{"docker.io/kindest/kindnetd:v1", "registry.k8s.io/pause:3.10"}
	got := missing([]string{"kindest/kindnetd:v1", "registry.k8s.io/pause:3.10", "registry.k8s.io/etcd:3.7.0-0"}, have)
	if !reflect.DeepEqual(got, []string{"registry.k8s.io/etcd:3.7.0-0"}) {
		t.Errorf("Missing = %v", got)
	}
}

func TestPreloadKeyFollowsEveryImage(t *testing.T) {
	k := preloadKey("base", []string{"a=1", "b=2"})
	if preloadKey("base", []string{"a=1", "b=3"}) == k || preloadKey("base2", []string{"a=1", "b=2"}) == k ||
		preloadKey("base", []string{"a=1"}) == k {
		t.Error("a changed input keeps the preload key")
	}
}

func TestPinArgsNameTheImageAsContainerdDoes(t *testing.T) {
	got := strings.Join(pinArgs("kindest/kindnetd:v1"), " ")
	if want := "ctr --namespace=k8s.io images label docker.io/kindest/kindnetd:v1 io.cri-containerd.pinned=pinned"; got != want {
		t.Errorf("PinArgs = %q, want %q", got, want)
	}
	if strings.Contains(strings.Join(importArgs, " "), "--label") {
		t.Error("ctr 1.6.20's images import has no --label flag")
	}
}
