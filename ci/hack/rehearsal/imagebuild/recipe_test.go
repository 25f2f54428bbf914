package imagebuild

import (
	"strings"
	"testing"
)

func TestRecipeForEveryKindOfReference(t *testing.T) {
	tests := []struct {
		ref           string
		kind          kind
		name, version string
	}{
		{"kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5", kindNode, "", "v1.37.0"},
		{"registry.k8s.io/kube-apiserver:v1.36.4", kindServer, "kube-apiserver", "v1.36.4"},
		{"registry.k8s.io/kube-proxy:v1.37.0", kindServer, "kube-proxy", "v1.37.0"},
		{"registry.k8s.io/pause:3.10", kindPause, "", "3.10"},
		{"registry.k8s.io/etcd:3.7.0-0", kindEtcd, "", "3.7.0-0"},
		{"quay.io/coreos/etcd:v3.6.12", kindQuayEtcd, "", "v3.6.12"},
		{"registry.k8s.io/coredns/coredns:v1.14.2", kindCoreDNS, "", "v1.14.2"},
		{"registry.k8s.io/kas-network-proxy/proxy-agent:v0.36.0", kindKonnectivity, "agent", "v0.36.0"},
		{"docker.io/kindest/kindnetd:v20260820-69b56db7", kindKindnetd, "", "v20260820-69b56db7"},
		{"kindest/local-path-provisioner:v20260820-69b56db7", kindLocalPath, "", "v20260820-69b56db7"},
		{"docker.io/kindest/local-path-helper:v20260131-7181c60a", kindLocalHelper, "", "v20260131-7181c60a"},
		{"clastix/kubectl:v1.37", kindKubectl, "", "v1.37"},
		{"clastix/kamaji:26.8.2-edge", kindKamaji, "", "26.8.2-edge"},
		{"clastix/kamaji:26.7.1-edge", kindUnsupported, "", "26.7.1-edge"},
		{"quay.io/jetstack/cert-manager-webhook:v1.18.3", kindCertManager, "webhook", "v1.18.3"},
		{"quay.io/jetstack/cert-manager-startupapicheck:v1.18.3", kindCertManager, "startupapicheck", "v1.18.3"},
		{"quay.io/jetstack/cert-manager-acmesolver:v1.18.3", kindUnsupported, "", "v1.18.3"},
		{"quay.io/jetstack/cert-manager-controller:v1.19.0", kindUnsupported, "", "v1.19.0"},
		{"docker.io/projecthami/hami:v2.10.0", kindHAMi, "", "v2.10.0"},
		{"projecthami/hami:v2.9.0", kindUnsupported, "", "v2.9.0"},
		{"docker.io/liangjw/kube-webhook-certgen:v1.1.1", kindCertgen, "", "v1.1.1"},
		{"docker.io/projecthami/mock-device-plugin:v1.0.1", kindUnsupported, "", "v1.0.1"},
		{"ghcr.io/nvidia/nvml-mock:sha-0eeb2ee", kindNVMLMock, "", "sha-0eeb2ee"},
		{"ghcr.io/nvidia/nvml-mock:v0.3.0", kindUnsupported, "", "v0.3.0"},
		{"localhost:5000/x:1", kindUnsupported, "", "1"},
	}
	for _, tc := range tests {
		t.Run(tc.ref, func(t *testing.T) {
			r := recipeFor(tc.ref)
			if r.Kind != tc.kind || r.Name != tc.name || r.Version != tc.version || r.Ref != tc.ref {
				t.Errorf("RecipeFor = %+v, want kind %q name %q version %q", r, tc.kind, tc.name, tc.version)
			}
			if (r.Kind == kindUnsupported) != (r.Why != "") {
				t.Errorf("kind %q with why %q: only an unbuilt image says why", r.Kind, r.Why)
			}
		})
	}
	if why := recipeFor("clastix/kamaji:26.7.1-edge").Why; !strings.Contains(why, kamajiSnapshot.Tag) {
		t.Errorf("another kamaji's reason %q does not name the pinned tag", why)
	}
	if why := recipeFor("projecthami/mock-device-plugin:v1.0.1").Why; !strings.Contains(why, "module proxy") {
		t.Errorf("mock-device-plugin's reason %q does not say what is missing", why)
	}
}

func TestEtcdVersionOfAKubeadmTag(t *testing.T) {
	for tag, want := range map[string]string{"3.7.0-0": "v3.7.0", "3.6.8-0": "v3.6.8", "v3.6.12": "v3.6.12", "v3.5.6": "v3.5.6"} {
		if got := etcdVersion(tag); got != want {
			t.Errorf("EtcdVersion(%s) = %s, want %s", tag, got, want)
		}
	}
}

func TestEtcdProgramTakesServedToolsWhereThePinsAreNot(t *testing.T) {
	p := etcdProgram("v3.6.12")
	if p.Version != "v3.6.12" || p.Require["go.etcd.io/etcd/etcdctl/v3"] != "v3.6.8" || p.Require["go.etcd.io/etcd/etcdutl/v3"] != "v3.6.8" {
		t.Errorf("v3.6.12: %+v", p)
	}
	p = etcdProgram("v3.7.0")
	if p.Require["go.etcd.io/etcd/etcdctl/v3"] != "v3.7.0" || p.Rename["server"] != "etcd" {
		t.Errorf("v3.7.0: %+v", p)
	}
}
