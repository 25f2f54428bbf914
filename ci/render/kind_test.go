package render

import (
	"strings"
	"testing"

	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"
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
	if c.Networking.APIServerAddress != "" || c.Networking.APIServerPort != 0 || len(c.KubeadmConfigPatches) != 0 ||
		len(c.Nodes[0].ExtraPortMappings) != 0 {
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

// On a cgroup v1 host the management node's kubelet gets failCgroupV1:
// false through a kubeadm patch kind merges into its KubeletConfiguration;
// the patch decodes strictly into the kubelet's own type. Elsewhere kind's
// kubelet is left alone.
func TestKindConfigLetsTheKubeletStartOnCgroupV1(t *testing.T) {
	l := testLabs(t)["default"]
	for _, tt := range []struct {
		name string
		o    Options
		want bool // a KubeletConfiguration patch with failCgroupV1: false
	}{
		{"cgroup v2", dindOptions, false},
		{"cgroup v1", cgroupV1Options(), true},
		{"cgroup v1, no other patch", Options{CgroupV1: true}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := KindConfig(l, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range c.KubeadmConfigPatches {
				if !strings.Contains(p, "kind: KubeletConfiguration") {
					continue
				}
				var kc kubeletv1beta1.KubeletConfiguration
				if err := yaml.UnmarshalStrict([]byte(p), &kc); err != nil {
					t.Fatalf("kubelet patch %q: %v", p, err)
				}
				if kc.FailCgroupV1 == nil || *kc.FailCgroupV1 {
					t.Fatalf("kubelet patch %q: failCgroupV1 = %v, want false", p, kc.FailCgroupV1)
				}
				found = true
			}
			if found != tt.want {
				t.Errorf("kubelet patch present = %v, want %v (patches %q)", found, tt.want, c.KubeadmConfigPatches)
			}
			if len(tt.o.CertSANs) > 0 && !strings.Contains(strings.Join(c.KubeadmConfigPatches, "\n"), "ClusterConfiguration") {
				t.Errorf("the ClusterConfiguration patch is gone: %q", c.KubeadmConfigPatches)
			}
		})
	}
}
