package lab

import (
	"fmt"
	"strings"
	"testing"
)

// TestPortAllocation: omitted NodePorts are allocated from the defaults up,
// never reuse a port set anywhere in the lab, and overrides are kept.
func TestPortAllocation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ports []string // per tenant, the ports: block ("" = none)
		want  []Ports
	}{
		{"defaults", []string{"", ""}, []Ports{{31443, 31132}, {31444, 31133}}},
		{"override on first", []string{"{apiServer: 30001, konnectivity: 30002}", ""}, []Ports{{30001, 30002}, {31443, 31132}}},
		{"override takes a default later tenants skip", []string{"", "", "{apiServer: 31444, konnectivity: 31132}"},
			[]Ports{{31443, 31133}, {31445, 31134}, {31444, 31132}}},
		{"api override only", []string{"{apiServer: 31132}", ""}, []Ports{{31132, 31133}, {31443, 31134}}},
		{"top of range", []string{"{apiServer: 32767, konnectivity: 32766}"}, []Ports{{32767, 32766}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			for i, p := range tc.ports {
				fmt.Fprintf(&b, "  - name: t%d\n", i)
				if p != "" {
					fmt.Fprintf(&b, "    ports: %s\n", p)
				}
				b.WriteString(okWorker)
			}
			l, err := Parse([]byte(one(b.String())))
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range tc.want {
				if got := l.Tenants[i].Ports; got != w {
					t.Errorf("tenant %d: ports %+v, want %+v", i, got, w)
				}
			}
		})
	}
}

// TestPortAllocationManyTenants: the largest lab still gets distinct ports.
func TestPortAllocationManyTenants(t *testing.T) {
	var b strings.Builder
	for i := 0; i < MaxTenants; i++ {
		fmt.Fprintf(&b, "  - name: t%d\n", i)
		if i%3 == 0 { // scatter overrides into the allocator's path
			fmt.Fprintf(&b, "    ports: {apiServer: %d}\n", 31443+i+1)
		}
		b.WriteString(okWorker)
	}
	l, err := Parse([]byte(one(b.String())))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int32]string{}
	for _, tn := range l.Tenants {
		for _, p := range []int32{tn.Ports.APIServer, tn.Ports.Konnectivity} {
			if other, dup := seen[p]; dup {
				t.Errorf("port %d given to %s and %s", p, other, tn.Name)
			}
			if p < minNodePort || p > maxNodePort {
				t.Errorf("%s: port %d outside the NodePort range", tn.Name, p)
			}
			seen[p] = tn.Name
		}
	}
}

// TestApplyDefaultsIdempotent: defaulting twice changes nothing.
func TestApplyDefaultsIdempotent(t *testing.T) {
	l := Default()
	before := fmt.Sprintf("%+v", *l)
	l.applyDefaults()
	if after := fmt.Sprintf("%+v", *l); after != before {
		t.Errorf("second ApplyDefaults changed the lab:\n%s\n%s", before, after)
	}
}
