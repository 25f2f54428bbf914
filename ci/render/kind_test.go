package render

import (
	"testing"

	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
)

func TestKindConfigDefaultsAreKinds(t *testing.T) {
	l := testLabs(t)["default"]
	c, err := KindConfig(l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Nodes) != 1 || c.Nodes[0].Image != l.Versions.KindNodeImage || c.Nodes[0].Role != kind.ControlPlaneRole {
		t.Fatalf("nodes %+v: want one control-plane node with %s", c.Nodes, l.Versions.KindNodeImage)
	}
	if c.Networking.IPFamily != kind.IPv4Family {
		t.Errorf("ipFamily %q, want ipv4", c.Networking.IPFamily)
	}
	if c.Networking.APIServerAddress != "" || c.Networking.APIServerPort != 0 || len(c.KubeadmConfigPatches) != 0 || len(c.Nodes[0].ExtraPortMappings) != 0 {
		t.Errorf("zero Options changed kind defaults: %+v", c)
	}
}

func TestKindConfigPublishesEveryTenantPort(t *testing.T) {
	for name, l := range testLabs(t) {
		c, err := KindConfig(l, dindOptions)
		if err != nil {
			t.Fatal(err)
		}
		mapped := map[int32]bool{}
		for _, m := range c.Nodes[0].ExtraPortMappings {
			if m.HostPort != m.ContainerPort || m.ListenAddress != "0.0.0.0" {
				t.Errorf("%s: mapping %+v: want hostPort == containerPort on 0.0.0.0", name, m)
			}
			mapped[m.ContainerPort] = true
		}
		for _, tn := range l.Tenants {
			if !mapped[tn.Ports.APIServer] || !mapped[tn.Ports.Konnectivity] {
				t.Errorf("%s/%s: ports %+v not all published (%v)", name, tn.Name, tn.Ports, mapped)
			}
		}
		if len(mapped) != 2*len(l.Tenants) {
			t.Errorf("%s: %d distinct mappings for %d tenants", name, len(mapped), len(l.Tenants))
		}
	}
}
