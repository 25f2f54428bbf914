package docker

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestContainerIPv4(t *testing.T) {
	mk := func(nets map[string]Endpoint) Container {
		c := Container{Name: "/gpu-lab-control-plane"}
		c.NetworkSettings.Networks = nets
		return c
	}
	tests := []struct {
		name    string
		c       Container
		network string
		want    string
		errHas  string
	}{
		{"dual stack", mk(map[string]Endpoint{
			"kind": {IPAddress: "172.18.0.2", GlobalIPv6Address: "fc00:f853:ccd:e793::2"}}), "kind", "172.18.0.2", ""},
		{"ipv4 only", mk(map[string]Endpoint{"kind": {IPAddress: "10.89.0.3"}}), "kind", "10.89.0.3", ""},
		{"ipv6 only", mk(map[string]Endpoint{"kind": {GlobalIPv6Address: "fc00::2"}}), "kind", "", "no IPv4 address"},
		{"ipv6 in the ipv4 field", mk(map[string]Endpoint{"kind": {IPAddress: "fc00::2"}}), "kind", "", "no IPv4 address"},
		{"other network", mk(map[string]Endpoint{"bridge": {IPAddress: "172.17.0.2"}}), "kind", "", "not on network kind (it is on: bridge)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ContainerIPv4(tt.c, tt.network)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want one containing %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestKindNodeRunArgs(t *testing.T) {
	got := RunArgs(KindNodeSpec("gpu-lab-tenant-a-worker", "kindest/node:v1.36.4", "kind",
		map[string]string{"gpu-lab.dev/lab": "gpu-lab"}, KindNodeHost{}))
	want := []string{"run", "--detach", "--tty", "--net", "kind", "--hostname", "gpu-lab-tenant-a-worker",
		"--name", "gpu-lab-tenant-a-worker", "--privileged",
		"--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
		"--tmpfs", "/tmp", "--tmpfs", "/run", "--volume", "/var", "--volume", "/lib/modules:/lib/modules:ro",
		"--restart=on-failure:1", "--init=false", "--cgroupns=private",
		"--env", "KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER",
		"--label", "gpu-lab.dev/lab=gpu-lab", "kindest/node:v1.36.4"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestIsNotFound(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&Error{Stderr: "Error: No such container: x"}, true},
		{&Error{Stderr: "Error response from daemon: network x not found"}, true},
		{&Error{Stderr: "permission denied"}, false},
		{errors.New("no such thing"), false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := IsNotFound(tt.err); got != tt.want {
			t.Errorf("IsNotFound(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
