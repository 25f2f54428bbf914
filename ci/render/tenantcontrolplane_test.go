package render

import (
	"strings"
	"testing"
)

func TestTenantControlPlaneUsesLabPortsAndDistinctCIDRs(t *testing.T) {
	for name, l := range testLabs(t) {
		cidrs := map[string]string{"10.244.0.0/16": "management cluster (kind default)"}
		for _, tn := range l.Tenants {
			tcp, err := TenantControlPlaneFor(l, tn.Name, dindOptions)
			if err != nil {
				t.Fatalf("%s/%s: %v", name, tn.Name, err)
			}
			np := tcp.Spec.NetworkProfile
			if np.Port != tn.Ports.APIServer || tcp.Spec.Addons.Konnectivity.Server.Port != tn.Ports.Konnectivity {
				t.Errorf("%s/%s: ports %d/%d, want the lab's %d/%d", name, tn.Name, np.Port,
					tcp.Spec.Addons.Konnectivity.Server.Port, tn.Ports.APIServer, tn.Ports.Konnectivity)
			}
			if np.Address != dindOptions.ManagementAddress {
				t.Errorf("%s/%s: address %q", name, tn.Name, np.Address)
			}
			if other, dup := cidrs[np.PodCIDR]; dup {
				t.Errorf("%s/%s: pod CIDR %s also used by %s", name, tn.Name, np.PodCIDR, other)
			}
			cidrs[np.PodCIDR] = tn.Name
			if tcp.Spec.Kubernetes.Version != l.Versions.Kubernetes || tcp.Spec.Addons.Konnectivity.Agent.Version != l.Versions.Konnectivity {
				t.Errorf("%s/%s: versions %q/%q", name, tn.Name, tcp.Spec.Kubernetes.Version, tcp.Spec.Addons.Konnectivity.Agent.Version)
			}
			if tcp.Spec.Addons.KubeProxy != nil {
				t.Errorf("%s/%s: Kamaji's kubeProxy addon is set; the lab deploys its own kube-proxy", name, tn.Name)
			}
			if r := tcp.Spec.ControlPlane.Deployment.Replicas; r == nil || *r != 1 {
				t.Errorf("%s/%s: replicas %v, want 1", name, tn.Name, r)
			}
			if !contains(np.CertSANs, "docker") {
				t.Errorf("%s/%s: certSANs %v lack the DinD hostname", name, tn.Name, np.CertSANs)
			}
		}
	}
}

// TestTenantControlPlaneGivesTheEgressFlagItself: the API server's extra
// arguments are exactly Kamaji's egress selector flag, whose file only
// Kamaji's konnectivity addon provides — so the addon is on wherever the
// flag is given.
func TestTenantControlPlaneGivesTheEgressFlagItself(t *testing.T) {
	for name, l := range testLabs(t) {
		for _, tn := range l.Tenants {
			tcp, err := TenantControlPlaneFor(l, tn.Name, dindOptions)
			if err != nil {
				t.Fatalf("%s/%s: %v", name, tn.Name, err)
			}
			x := tcp.Spec.ControlPlane.Deployment.ExtraArgs
			if x == nil || len(x.APIServer) != 1 || x.APIServer[0] != egressSelectorFlag {
				t.Errorf("%s/%s: extraArgs %+v, want the API server's to be [%s]", name, tn.Name, x, egressSelectorFlag)
			}
			if k := tcp.Spec.Addons.Konnectivity; k == nil {
				t.Errorf("%s/%s: the egress flag without Kamaji's konnectivity addon names a file nothing mounts", name, tn.Name)
			}
		}
	}
}

func TestTenantControlPlaneRejectsBadInput(t *testing.T) {
	l := testLabs(t)["default"]
	for _, tc := range []struct {
		tenant, addr, want string
	}{
		{"tenant-a", "", `management address ""`},
		{"tenant-a", "fc00:f853:ccd:e793::2", "IPv4"},
		{"tenant-a", "kind-control-plane", "IPv4"},
		{"tenant-z", "172.18.0.2", `no such tenant`},
	} {
		_, err := TenantControlPlaneFor(l, tc.tenant, Options{ManagementAddress: tc.addr})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("tenant %q address %q: error %v, want it to mention %q", tc.tenant, tc.addr, err, tc.want)
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
