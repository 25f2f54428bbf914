package render

import (
	"net/netip"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// TestTenantPodCIDRsNeverOverlap: every tenant a lab may hold gets a pod CIDR
// disjoint from the others, from kind's management pod and service CIDRs
// and from the tenants' own service CIDR.
func TestTenantPodCIDRsNeverOverlap(t *testing.T) {
	taken := []netip.Prefix{
		netip.MustParsePrefix("10.244.0.0/16"), // kind management pods
		netip.MustParsePrefix(TenantServiceCIDR),
	}
	for i := 0; i < lab.MaxTenants; i++ {
		p, err := netip.ParsePrefix(TenantPodCIDR(i))
		if err != nil {
			t.Fatalf("tenant %d: %v", i, err)
		}
		for _, o := range taken {
			if p.Overlaps(o) {
				t.Errorf("tenant %d: pod CIDR %s overlaps %s", i, p, o)
			}
		}
		taken = append(taken, p)
	}
}

func TestAllNamesAreUniqueAndRelative(t *testing.T) {
	for name, l := range testLabs(t) {
		files, err := All(l, Options{ManagementAddress: "10.0.0.1"})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, f := range files {
			if seen[f.Name] || f.Name == "" || f.Name[0] == '/' || len(f.Data) == 0 {
				t.Errorf("%s: bad or duplicate file %q (%d bytes)", name, f.Name, len(f.Data))
			}
			seen[f.Name] = true
		}
	}
	if _, err := All(lab.Default(), Options{}); err == nil {
		t.Error("All without a management address: no error")
	}
}
