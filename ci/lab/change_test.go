package lab

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestChanges is the rule of what `labctl up` applies to a running lab,
// case by case, on the resolved seed lab.
func TestChanges(t *testing.T) {
	third := func(l *Lab) {
		l.Tenants = append(l.Tenants, Tenant{Name: "tenant-c", Workers: []Worker{{Name: "worker",
			GPUs: []GPUGroup{{Model: "L4", Count: 1}}}}})
	}
	worker2 := func(l *Lab) {
		l.Tenants[0].Workers = append(l.Tenants[0].Workers, Worker{Name: "worker2", GPUs: l.Tenants[0].Workers[0].GPUs})
	}
	tests := []struct {
		name     string
		recorded func(l *Lab) // the running lab from the seed lab (nil: the seed lab)
		change   func(l *Lab)
		want     string // Change.String()
		wantErr  string
	}{
		{"the same lab", nil, func(*Lab) {}, "", ""},
		{"a tenant added at the end", nil, third, "adds tenant(s) tenant-c", ""},
		{"a tenant added first", nil, func(l *Lab) {
			third(l)
			l.Tenants = append(l.Tenants[2:], l.Tenants[:2]...)
		}, "", "running tenant tenant-a would move from place 1 to 2"},
		{"the last tenant removed", nil, func(l *Lab) { l.Tenants = l.Tenants[:1] }, "removes tenant(s) tenant-b", ""},
		{"the last tenant replaced", nil, func(l *Lab) {
			third(l)
			l.Tenants = []Tenant{l.Tenants[0], l.Tenants[2]}
		}, "removes tenant(s) tenant-b; adds tenant(s) tenant-c", ""},
		{"the first tenant removed", nil, func(l *Lab) { l.Tenants = l.Tenants[1:] },
			"", "running tenant tenant-b would move from place 2 to 1"},
		{"two tenants swapped", nil, func(l *Lab) { l.Tenants[0], l.Tenants[1] = l.Tenants[1], l.Tenants[0] },
			"", "running tenant tenant-a would move from place 1 to 2"},
		{"a worker added to a running tenant", nil, worker2, "adds worker(s) tenant-a/worker2", ""},
		{"a worker removed from a running tenant", worker2, func(l *Lab) {
			l.Tenants[0].Workers = l.Tenants[0].Workers[1:]
		}, "removes worker(s) tenant-a/worker", ""},
		{"a running worker given other cards", nil, func(l *Lab) { l.Tenants[1].Workers[0].GPUs[0].Count = 1 },
			"", "worker worker of running tenant tenant-b would have other GPUs"},
		{"another HAMi setting", nil, func(l *Lab) { l.HAMi.SplitCount = 4 }, "", "differs in more than its tenants"},
		{"another name", nil, func(l *Lab) { l.Name = "other" }, "", "differs in more than its tenants"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recorded := Default()
			if tc.recorded != nil {
				tc.recorded(recorded)
				recorded = reparse(t, recorded)
			}
			given := reparse(t, recorded)
			tc.change(given)
			given = reparse(t, given)
			c, err := Changes(recorded, given)
			if tc.wantErr == "" {
				if err != nil || c.String() != tc.want || c.None() != (tc.want == "") {
					t.Fatalf("Changes = %q (none %v), %v; want %q", c, c.None(), err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Changes = %q, %v; want an error containing %q", c, err, tc.wantErr)
			}
		})
	}
}

// TestChangesKeepsRemovedTenantsAsRecorded: a removed tenant comes back
// as the running lab has it, workers included (their containers go).
func TestChangesKeepsRemovedTenantsAsRecorded(t *testing.T) {
	recorded, given := Default(), Default()
	given.Tenants = given.Tenants[:1]
	c, err := Changes(recorded, given)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.RemovedTenants) != 1 || !reflect.DeepEqual(c.RemovedTenants[0], recorded.Tenants[1]) {
		t.Fatalf("removed %+v, want the running lab's %+v", c.RemovedTenants, recorded.Tenants[1])
	}
}

// TestChangesNamesPortsAnAddedTenantTakes: the seed lab's tenants have
// their ports allocated in order; a tenant added at the end with tenant-a's
// ports moves tenant-a's, which is named.
func TestChangesNamesPortsAnAddedTenantTakes(t *testing.T) {
	recorded := Default()
	p := recorded.Tenants[0].Ports
	given, err := Parse(append(defaultYAML(), fmt.Sprintf(`  - name: tenant-c
    ports: {apiServer: %d, konnectivity: %d}
    workers: [{name: worker, gpus: [{model: L4, count: 1}]}]
`, p.APIServer, p.Konnectivity)...))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("tenant tenant-a's ports would be %d/%d, the running lab's are %d/%d", given.Tenants[0].Ports.APIServer,
		given.Tenants[0].Ports.Konnectivity, p.APIServer, p.Konnectivity)
	if _, err := Changes(recorded, given); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Changes = %v, want an error containing %q", err, want)
	}
}

func reparse(t *testing.T, l *Lab) *Lab {
	t.Helper()
	b, err := yaml.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
