package render

import (
	"fmt"
	"net/netip"
)

// Options are the inputs a lab file does not hold: facts about where the lab
// runs, known only to the stage that creates it.
type Options struct {
	// ManagementAddress is the management node's IPv4 address on the kind
	// network. Kamaji advertises each tenant API server and konnectivity
	// server at this address (networkProfile.address); workers dial it.
	ManagementAddress string
	// APIServerAddress is the address the management API server listens on
	// inside the Docker host (kind networking.apiServerAddress). Empty keeps
	// kind's 127.0.0.1; DinD needs "0.0.0.0" so other containers reach it.
	APIServerAddress string
	// APIServerPort pins the management API server's host port (kind
	// networking.apiServerPort); 0 lets kind pick a random port.
	APIServerPort int32
	// CertSANs are extra names clients use to reach the management API server
	// and every tenant API server, e.g. "docker", the DinD service hostname.
	CertSANs []string
	// PublishNodePorts maps every tenant NodePort to the same port on the
	// Docker host (kind extraPortMappings), so clients outside the kind
	// network (a Dagger container bound to the DinD service) reach tenants.
	PublishNodePorts bool
	// CgroupV1 says the nodes' host uses cgroup v1 (the daemon's `docker
	// info` CgroupVersion "1", read by preflight). The kubelet refuses to
	// start there unless its configuration sets failCgroupV1: false: the
	// field defaults to true (Kubernetes v1.36.4 and v1.37.0
	// pkg/kubelet/apis/config/v1beta1/defaults.go:293-294 and :291-292;
	// k8s.io/kubelet v0.36.3 config/v1beta1/types.go:951-957
	// `json:"failCgroupV1,omitempty"`, "Default: true") and validation
	// fails on a cgroup v1 host (v1.36.4
	// pkg/kubelet/apis/config/validation/validation_linux.go:34-37: "kubelet
	// is configured to not run on a host using cgroup v1"). When set, every
	// kubelet the lab configures gets failCgroupV1: false (KubeletCgroupV1).
	CgroupV1 bool
}

// KubeletCgroupV1 is the KubeletConfiguration field the lab sets to false
// on a cgroup v1 host (see Options.CgroupV1).
const KubeletCgroupV1 = "failCgroupV1"

// PlaceholderManagementAddress stands in for the management node address
// when nothing has been created yet (`labctl plan`): kind gives its first
// node this address on a fresh "kind" network. Stages pass the real one.
const PlaceholderManagementAddress = "172.18.0.2"

func (o Options) managementAddress() (string, error) {
	a, err := netip.ParseAddr(o.ManagementAddress)
	if err != nil || !a.Is4() {
		return "", fmt.Errorf("management address %q: must be the IPv4 address of the management node on the kind network (kind's IPv6 "+
			"addresses are not supported)", o.ManagementAddress)
	}
	return a.String(), nil
}
