package render

import (
	"fmt"

	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// clusterConfigurationPatch is the part of kubeadm's ClusterConfiguration the
// lab patches. kind (>= v0.33) merges certSANs with its own [localhost,
// <apiServerAddress>] instead of replacing them; the patch names no
// apiVersion so it matches whatever kubeadm API the node image uses.
type clusterConfigurationPatch struct {
	Kind      string `json:"kind"`
	APIServer struct {
		CertSANs []string `json:"certSANs"`
	} `json:"apiServer"`
}

// KindConfig is the management cluster: one control-plane node running
// Kamaji and every tenant control plane. It is IPv4 only because workers and
// konnectivity agents dial the node's IPv4 address, and the lab never needs
// MetalLB (tenants are NodePort services).
func KindConfig(l *lab.Lab, o Options) (*kind.Cluster, error) {
	node := kind.Node{Role: kind.ControlPlaneRole, Image: l.Versions.KindNodeImage}
	if o.PublishNodePorts {
		listen := o.APIServerAddress
		if listen == "" {
			listen = "127.0.0.1" // kind's default; never wider than the API server itself
		}
		for _, t := range l.Tenants {
			for _, p := range []int32{t.Ports.APIServer, t.Ports.Konnectivity} {
				node.ExtraPortMappings = append(node.ExtraPortMappings, kind.PortMapping{
					ContainerPort: p, HostPort: p, ListenAddress: listen, Protocol: kind.PortMappingProtocolTCP,
				})
			}
		}
	}
	c := &kind.Cluster{
		TypeMeta: kind.TypeMeta{Kind: "Cluster", APIVersion: "kind.x-k8s.io/v1alpha4"},
		Name:     l.Name,
		Nodes:    []kind.Node{node},
		Networking: kind.Networking{
			IPFamily:         kind.IPv4Family,
			APIServerAddress: o.APIServerAddress,
			APIServerPort:    o.APIServerPort,
		},
	}
	if len(o.CertSANs) > 0 {
		var p clusterConfigurationPatch
		p.Kind = "ClusterConfiguration"
		p.APIServer.CertSANs = o.CertSANs
		y, err := yaml.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("kind config: kubeadm patch: %w", err)
		}
		c.KubeadmConfigPatches = append(c.KubeadmConfigPatches, string(y))
	}
	if o.CgroupV1 {
		y, err := yaml.Marshal(kubeletConfigurationPatch{Kind: "KubeletConfiguration", FailCgroupV1: false})
		if err != nil {
			return nil, fmt.Errorf("kind config: kubelet patch: %w", err)
		}
		c.KubeadmConfigPatches = append(c.KubeadmConfigPatches, string(y))
	}
	return c, nil
}

// kubeletConfigurationPatch lets the management node's kubelet start on a
// cgroup v1 host (Options.CgroupV1). kind v0.33.0 renders a
// KubeletConfiguration document into the node's kubeadm config
// (pkg/cluster/internal/kubeadm/config.go, ConfigTemplateBetaV4) and merges
// each kubeadmConfigPatches entry into the document of its kind, ignoring
// the apiVersion when the patch names none
// (pkg/internal/patch/resource.go:66-70). The field is always written:
// false is the point.
type kubeletConfigurationPatch struct {
	Kind         string `json:"kind"`
	FailCgroupV1 bool   `json:"failCgroupV1"`
}
