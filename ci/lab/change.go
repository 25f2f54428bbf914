package lab

import (
	"fmt"
	"reflect"
	"strings"
)

// Grows tells whether given is recorded grown by tenants added at the end of
// its list, all else equal — the one change `labctl up` builds on a running
// lab instead of refusing it (issue 42: growing a lab by one tenant cost a
// teardown and a full rebuild). It returns the added tenants' names (none
// when the labs are the same), or an error naming the first difference
// that is not such a growth. Both labs are resolved (Load): a tenant
// without ports of its own keeps the ones it was given, since ports are
// allocated in the list's order, unless an added tenant takes them — then
// that tenant's ports are the difference named.
func Grows(recorded, given *Lab) ([]string, error) {
	r, g := *recorded, *given
	r.Tenants, g.Tenants = nil, nil
	if !reflect.DeepEqual(r, g) {
		return nil, fmt.Errorf("lab %q differs in more than its tenants (name, versions or HAMi settings); "+
			"only tenants added at the end of the list can be added to a running lab", given.Name)
	}
	if len(given.Tenants) < len(recorded.Tenants) {
		gone := recorded.Tenants[len(given.Tenants)].Name
		return nil, fmt.Errorf("tenant %s of the running lab is not in the lab file: a running lab can only grow "+
			"(tenants added at the end of the list)", gone)
	}
	for i, t := range recorded.Tenants {
		if n := given.Tenants[i]; !reflect.DeepEqual(t, n) {
			return nil, fmt.Errorf("tenant %s differs from the running lab's %s (%s): a running lab keeps its tenants as "+
				"they are and can only grow by tenants added at the end of the list", n.Name, t.Name, tenantDiff(t, n))
		}
	}
	var added []string
	for _, t := range given.Tenants[len(recorded.Tenants):] {
		added = append(added, t.Name)
	}
	return added, nil
}

// tenantDiff names what differs between two tenants.
func tenantDiff(a, b Tenant) string {
	var d []string
	if a.Name != b.Name {
		d = append(d, "name")
	}
	if a.Ports != b.Ports {
		d = append(d, fmt.Sprintf("ports %d/%d, was %d/%d", b.Ports.APIServer, b.Ports.Konnectivity, a.Ports.APIServer,
			a.Ports.Konnectivity))
	}
	if !reflect.DeepEqual(a.Workers, b.Workers) {
		d = append(d, "workers or their GPUs")
	}
	return strings.Join(d, ", ")
}
