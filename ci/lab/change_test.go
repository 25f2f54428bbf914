package lab

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestGrows is the rule of a running lab's growth, case by case, on the
// resolved seed lab.
func TestGrows(t *testing.T) {
	third := func(l *Lab) {
		l.Tenants = append(l.Tenants, Tenant{Name: "tenant-c", Workers: []Worker{{Name: "worker",
			GPUs: []GPUGroup{{Model: "L4", Count: 1}}}}})
	}
	tests := []struct {
		name      string
		change    func(l *Lab)
		wantAdded []string
		wantErr   string
	}{
		{"the same lab", func(*Lab) {}, nil, ""},
		{"a tenant added at the end", third, []string{"tenant-c"}, ""},
		{"a tenant added first", func(l *Lab) {
			third(l)
			l.Tenants = append(l.Tenants[2:], l.Tenants[:2]...)
		}, nil, "tenant tenant-c differs from the running lab's tenant-a (name, ports"},
		{"a tenant removed", func(l *Lab) { l.Tenants = l.Tenants[:1] }, nil, "tenant tenant-b of the running lab is not in the lab file"},
		{"a worker added to a running tenant", func(l *Lab) {
			l.Tenants[0].Workers = append(l.Tenants[0].Workers, Worker{Name: "worker2", GPUs: l.Tenants[0].Workers[0].GPUs})
		}, nil, "tenant tenant-a differs from the running lab's tenant-a (workers or their GPUs)"},
		{"another HAMi setting", func(l *Lab) { l.HAMi.SplitCount = 4 }, nil, "differs in more than its tenants"},
		{"another name", func(l *Lab) { l.Name = "other" }, nil, "differs in more than its tenants"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recorded, given := Default(), Default()
			tc.change(given)
			given = reparse(t, given)
			added, err := Grows(recorded, given)
			if tc.wantErr == "" {
				if err != nil || !slices.Equal(added, tc.wantAdded) {
					t.Fatalf("Grows = %v, %v; want %v", added, err, tc.wantAdded)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Grows = %v, %v; want an error containing %q", added, err, tc.wantErr)
			}
		})
	}
}

// reparse is l written out and loaded again, as `labctl up -f` loads a
// lab file: defaults applied, ports allocated to tenants without any.
// TestGrowsNamesPortsAnAddedTenantTakes: the seed lab's tenants have
// their ports allocated in order; a tenant added at the end with tenant-a's
// ports moves tenant-a's, which is named.
func TestGrowsNamesPortsAnAddedTenantTakes(t *testing.T) {
	recorded := Default()
	p := recorded.Tenants[0].Ports
	given, err := Parse(append(defaultYAML(), fmt.Sprintf(`  - name: tenant-c
    ports: {apiServer: %d, konnectivity: %d}
    workers: [{name: worker, gpus: [{model: L4, count: 1}]}]
`, p.APIServer, p.Konnectivity)...))
	if err != nil {
		t.Fatal(err)
	}
	want := "tenant tenant-a differs from the running lab's tenant-a (ports "
	if _, err := Grows(recorded, given); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Grows = %v, want an error containing %q", err, want)
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
