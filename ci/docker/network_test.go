package docker

import (
	"reflect"
	"testing"
)

func TestIPv4Subnet(t *testing.T) {
	cfg := func(subnets ...string) Network {
		n := Network{Name: "kind"}
		for _, s := range subnets {
			n.IPAM.Config = append(n.IPAM.Config, IPAMConfig{Subnet: s})
		}
		return n
	}
	tests := []struct {
		name    string
		net     Network
		want    string
		wantErr bool
	}{
		{"ipv4 only", cfg("172.18.0.0/16"), "172.18.0.0/16", false},
		{"ipv6 first then ipv4 (kind dual-stack)", cfg("fc00:f853:ccd:e793::/64", "172.18.0.0/16"), "172.18.0.0/16", false},
		{"ipv4 first then ipv6", cfg("172.19.0.0/16", "fc00:f853:ccd:e793::/64"), "172.19.0.0/16", false},
		{"unmasked subnet is masked", cfg("10.89.0.7/24"), "10.89.0.0/24", false},
		{"garbage entry skipped", cfg("not-a-cidr", "192.168.5.0/24"), "192.168.5.0/24", false},
		{"ipv6 only fails", cfg("fc00::/64"), "", true},
		{"no config fails", cfg(), "", true},
		{"concatenated template output is not an IPv4 subnet", cfg("fc00:f853:ccd:e793::1172.18.0.1/16"), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ipv4Subnet(tt.net)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("IPv4Subnet = %s, want error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want {
				t.Fatalf("IPv4Subnet = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseNetworkInspectDualStack(t *testing.T) {
	// Trimmed `docker network inspect kind` of a dual-stack kind network.
	data := []byte(`[{"Name":"kind","Id":"abc","EnableIPv6":true,"IPAM":{"Driver":"default","Config":[
	  {"Subnet":"fc00:f853:ccd:e793::/64","Gateway":"fc00:f853:ccd:e793::1"},
	  {"Subnet":"172.18.0.0/16","Gateway":"172.18.0.1"}]}}]`)
	n, err := parseNetworkInspect(data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ipv4Subnet(n)
	if err != nil || p.String() != "172.18.0.0/16" {
		t.Fatalf("IPv4Subnet = %v, %v", p, err)
	}
	if _, err := parseNetworkInspect([]byte(`[]`)); err == nil {
		t.Fatal("empty inspect: want error")
	}
}

func TestCreateNetworkArgs(t *testing.T) {
	tests := []struct {
		name string
		spec NetworkSpec
		want []string
	}{
		{"ipv4", NetworkSpec{Name: "n", Subnets: []string{"172.30.0.0/24"}},
			[]string{"network", "create", "--driver", "bridge", "--subnet", "172.30.0.0/24", "n"}},
		{"dual stack turns ipv6 on", NetworkSpec{Name: "n", Subnets: []string{"172.30.0.0/24", "fc00:1::/64"},
			Labels: map[string]string{"b": "2", "a": "1"}},
			[]string{"network", "create", "--driver", "bridge", "--ipv6", "--subnet", "172.30.0.0/24",
				"--subnet", "fc00:1::/64", "--label", "a=1", "--label", "b=2", "n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := createNetworkArgs(tt.spec); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
