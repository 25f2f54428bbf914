package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
)

// Network is the part of `docker network inspect` the lab reads.
type Network struct {
	Name       string `json:"Name"`
	ID         string `json:"Id"`
	EnableIPv6 bool   `json:"EnableIPv6"`
	IPAM       struct {
		Config []IPAMConfig `json:"Config"`
	} `json:"IPAM"`
}

// IPAMConfig is one subnet of a network; a dual-stack network has one per
// family, in no guaranteed order.
type IPAMConfig struct {
	Subnet  string `json:"Subnet"`
	Gateway string `json:"Gateway,omitempty"`
}

// ipv4Subnet picks the IPv4 subnet of a network that may also carry IPv6.
// kind creates its network dual-stack whenever the host allows it; the seed
// lab concatenated both gateways with a Go template and fed
// "fc00:…::1172.18.0.1" to MetalLB. Parsing each entry and keeping the one
// that is IPv4 avoids that whole class of bug.
func ipv4Subnet(n Network) (netip.Prefix, error) {
	var seen []string
	for _, c := range n.IPAM.Config {
		seen = append(seen, c.Subnet)
		p, err := netip.ParsePrefix(strings.TrimSpace(c.Subnet))
		if err != nil {
			continue
		}
		if p.Addr().Is4() {
			return p.Masked(), nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("network %s has no IPv4 subnet (subnets: %s); "+
		"the lab needs IPv4 on the kind network: remove the network so kind recreates it", n.Name, strings.Join(seen, ", "))
}

// parseNetworkInspect decodes `docker network inspect` output (an array).
func parseNetworkInspect(data []byte) (Network, error) {
	var ns []Network
	if err := json.Unmarshal(data, &ns); err != nil {
		return Network{}, fmt.Errorf("decode docker network inspect: %w", err)
	}
	if len(ns) != 1 {
		return Network{}, fmt.Errorf("docker network inspect returned %d networks, want 1", len(ns))
	}
	return ns[0], nil
}

// NetworkSpec describes a network to create.
type NetworkSpec struct {
	Name string
	// Subnets are CIDRs; an IPv6 one turns IPv6 on.
	Subnets []string
	Labels  map[string]string
}

// createNetworkArgs is the `docker network create` command line for spec.
func createNetworkArgs(s NetworkSpec) []string {
	args := []string{"network", "create", "--driver", "bridge"}
	for _, sn := range s.Subnets {
		if p, err := netip.ParsePrefix(sn); err == nil && p.Addr().Is6() {
			args = append(args, "--ipv6")
			break
		}
	}
	for _, sn := range s.Subnets {
		args = append(args, "--subnet", sn)
	}
	for _, k := range sortedKeys(s.Labels) {
		args = append(args, "--label", k+"="+s.Labels[k])
	}
	return append(args, s.Name)
}

// CreateNetwork creates a bridge network.
func (c CLI) CreateNetwork(ctx context.Context, s NetworkSpec) error {
	if _, err := c.Run(ctx, createNetworkArgs(s)...); err != nil {
		return fmt.Errorf("create network %s: %w", s.Name, err)
	}
	return nil
}

// InspectNetwork reads one network.
func (c CLI) InspectNetwork(ctx context.Context, name string) (Network, error) {
	out, err := c.Run(ctx, "network", "inspect", name)
	if err != nil {
		return Network{}, fmt.Errorf("inspect network %s: %w", name, err)
	}
	return parseNetworkInspect(out)
}

// RemoveNetwork removes a network; a missing network is not an error.
func (c CLI) RemoveNetwork(ctx context.Context, name string) error {
	if _, err := c.Run(ctx, "network", "rm", name); err != nil && !IsNotFound(err) {
		return fmt.Errorf("remove network %s: %w", name, err)
	}
	return nil
}
