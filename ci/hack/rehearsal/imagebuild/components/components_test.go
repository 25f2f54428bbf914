package components

import (
	"reflect"
	"testing"
)

// build/server-image/Dockerfile:21-25 at v1.37.0.
func TestServerImageLayout(t *testing.T) {
	s := ServerImage("kube-apiserver", "v1.37.0", "/bin37", StaticBaseRef)
	if s.Ref != "registry.k8s.io/kube-apiserver:v1.37.0" || s.Base != StaticBaseRef {
		t.Errorf("ref %s base %s", s.Ref, s.Base)
	}
	got := map[string]string{}
	for _, f := range s.Files {
		got[f.Dest] = f.Src
		if f.Mode != 0o755 {
			t.Errorf("%s mode %v, want 0755", f.Dest, f.Mode)
		}
	}
	want := map[string]string{"/usr/local/bin/kube-apiserver": "/bin37/kube-apiserver", "/go-runner": "/bin37/kube-log-runner"}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(s.Entrypoint, []string{"/go-runner"}) {
		t.Errorf("files %v entrypoint %v", got, s.Entrypoint)
	}
}

// build/pause/Dockerfile at v1.37.0: /pause, user 65535, from scratch.
func TestPauseRunsAsNobodyFromScratch(t *testing.T) {
	s := Pause("3.10", "/c/pause")
	if s.Ref != "registry.k8s.io/pause:3.10" || s.Base != "scratch" || s.User != "65535:65535" ||
		!reflect.DeepEqual(s.Entrypoint, []string{"/pause"}) {
		t.Errorf("pause spec %+v", s)
	}
}

func TestEtcdAndCoreDNSLayout(t *testing.T) {
	e := Etcd("3.7.0-0", "v3.7.0", "/e")
	if e.Ref != "registry.k8s.io/etcd:3.7.0-0" || len(e.Files) != 3 || e.Files[0].Dest != "/usr/local/bin/etcd" ||
		e.Files[0].Src != "/e/etcd" {
		t.Errorf("etcd spec %+v", e)
	}
	c := CoreDNS("v1.14.6", "/d")
	if c.Ref != "registry.k8s.io/coredns/coredns:v1.14.6" || !reflect.DeepEqual(c.Entrypoint, []string{"/coredns"}) {
		t.Errorf("coredns spec %+v", c)
	}
	k := Konnectivity("server", "v0.36.0", "/k")
	if k.Ref != "registry.k8s.io/kas-network-proxy/proxy-server:v0.36.0" || k.Files[0].Dest != "/proxy-server" ||
		k.Files[0].Src != "/k/proxy-server" {
		t.Errorf("konnectivity spec %+v", k)
	}
}
