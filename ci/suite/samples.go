package suite

import (
	"cmp"
	"slices"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// inLabOrder orders the run's GPU samples for the reports: tenants in the
// order the lab spec lists them (a tenant the spec does not name follows,
// by name), each tenant's samples in time order. Samples are recorded as
// cases finish, so without this a tenant whose case happened to sample
// first would lead the report.
func inLabOrder(samples []results.TenantState, tenants []string) []results.TenantState {
	rank := func(name string) int {
		if i := slices.Index(tenants, name); i >= 0 {
			return i
		}
		return len(tenants)
	}
	out := slices.Clone(samples)
	slices.SortStableFunc(out, func(a, b results.TenantState) int {
		return cmp.Or(cmp.Compare(rank(a.Name), rank(b.Name)), cmp.Compare(a.Name, b.Name), a.At.Compare(b.At))
	})
	return out
}
