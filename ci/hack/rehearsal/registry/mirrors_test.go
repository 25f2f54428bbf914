package registry

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMirrorRefIsWhatTheEngineAsksTheMirrorFor(t *testing.T) {
	const addr = "172.17.0.1:5000"
	for ref, want := range map[string]string{
		"golang:1.26":                            addr + "/docker.io/library/golang:1.26",
		"docker:29-dind":                         addr + "/docker.io/library/docker:29-dind",
		"registry.k8s.io/kube-apiserver:v1.37.0": addr + "/registry.k8s.io/kube-apiserver:v1.37.0",
		"quay.io/coreos/etcd:v3.6.12":            addr + "/quay.io/coreos/etcd:v3.6.12",
		"kindest/node:v1.37.0@sha256:" + strings.Repeat("a", 64): addr + "/docker.io/kindest/node:v1.37.0",
		"ghcr.io/x/y@sha256:" + strings.Repeat("b", 64):          addr + "/ghcr.io/x/y@sha256:" + strings.Repeat("b", 64),
		"clastix/kamaji": addr + "/docker.io/clastix/kamaji:latest",
	} {
		got, err := mirrorRef(addr, ref)
		if err != nil || got != want {
			t.Errorf("mirrorRef(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
	if _, err := mirrorRef(addr, "not a reference"); err == nil {
		t.Error("mirrorRef of an invalid reference: want an error")
	}
}

func TestMirrorsSendEachHostToItsPathOverPlainHTTP(t *testing.T) {
	b, err := json.Marshal(Mirrors("172.17.0.1:5000"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]struct {
		Mirrors []string `json:"mirrors"`
		HTTP    *bool    `json:"http"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if h := got["172.17.0.1:5000"].HTTP; h == nil || !*h {
		t.Errorf("the mirror's own entry lacks \"http\": true: %s", b)
	}
	for _, host := range []string{"docker.io", "registry.k8s.io", "quay.io", "ghcr.io"} {
		if m := got[host].Mirrors; len(m) != 1 || m[0] != "172.17.0.1:5000/"+host {
			t.Errorf("%s mirrors = %v; want [172.17.0.1:5000/%s]", host, m, host)
		}
	}
}

func TestConfigPutsStorageUnderTheLayoutAndListensOnPort(t *testing.T) {
	l := LayoutFor("/work/rh/d")
	c := config(l)
	for _, want := range []string{"rootdirectory: /work/rh/d/registry/storage\n", "addr: 0.0.0.0:5000\n", "version: 0.1\n"} {
		if !strings.Contains(c, want) {
			t.Errorf("config lacks %q:\n%s", want, c)
		}
	}
}
