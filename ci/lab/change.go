package lab

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Change is how a lab file differs from the running lab a state dir
// records, when `labctl up` can apply it to that lab instead of refusing
// it (issue 42: growing a lab by one tenant cost a teardown and a full
// rebuild): tenants added or removed at the end of the list, and workers
// added to or removed from a running tenant. Everything else stays as it
// is.
type Change struct {
	// AddedTenants are the tenants the lab file adds, in its order.
	AddedTenants []string
	// RemovedTenants are the running lab's tenants the lab file no longer
	// has, as recorded (their workers name their containers).
	RemovedTenants []Tenant
	// AddedWorkers and RemovedWorkers are the workers of a running tenant
	// the lab file adds or no longer has, in the lab's order.
	AddedWorkers, RemovedWorkers []WorkerRef
}

// WorkerRef names one worker of one tenant.
type WorkerRef struct{ Tenant, Worker string }

func (w WorkerRef) String() string { return w.Tenant + "/" + w.Worker }

// None tells whether the lab file is the running lab.
func (c Change) None() bool {
	return len(c.AddedTenants) == 0 && len(c.RemovedTenants) == 0 && len(c.AddedWorkers) == 0 && len(c.RemovedWorkers) == 0
}

// String says the change in one line, what goes first.
func (c Change) String() string {
	var parts []string
	if len(c.RemovedTenants) > 0 {
		var names []string
		for _, t := range c.RemovedTenants {
			names = append(names, t.Name)
		}
		parts = append(parts, "removes tenant(s) "+strings.Join(names, ", "))
	}
	if len(c.RemovedWorkers) > 0 {
		parts = append(parts, "removes worker(s) "+joinRefs(c.RemovedWorkers))
	}
	if len(c.AddedTenants) > 0 {
		parts = append(parts, "adds tenant(s) "+strings.Join(c.AddedTenants, ", "))
	}
	if len(c.AddedWorkers) > 0 {
		parts = append(parts, "adds worker(s) "+joinRefs(c.AddedWorkers))
	}
	return strings.Join(parts, "; ")
}

func joinRefs(ws []WorkerRef) string {
	var s []string
	for _, w := range ws {
		s = append(s, w.String())
	}
	return strings.Join(s, ", ")
}

// Changes tells how given changes the running lab recorded, or returns an
// error naming the first difference `labctl up` cannot apply to a running
// lab. Both labs are resolved (Load).
//
// Tenants are added and removed only at the end of the list: a tenant's
// pod network is its place in the list (render.TenantPodCIDR) and its
// ports, unless it sets its own, are allocated in the list's order
// (allocatePorts), so a tenant that moved would need its workers' network
// rebuilt. A running tenant keeps its ports: an added tenant that takes
// them is named. Inside a running tenant, workers are matched by name: a
// kept worker keeps its cards; workers may be added or removed anywhere
// in its list (a worker's cards and container follow its name).
func Changes(recorded, given *Lab) (Change, error) {
	r, g := *recorded, *given
	r.Tenants, g.Tenants = nil, nil
	if !reflect.DeepEqual(r, g) {
		return Change{}, fmt.Errorf("lab %q differs in more than its tenants (name, versions or HAMi settings); "+
			"only tenants and workers can be added to or removed from a running lab", given.Name)
	}
	// The running tenants that stay are those before the first place
	// where the lists differ; none of the rest may be in both.
	kept := 0
	for kept < min(len(recorded.Tenants), len(given.Tenants)) && recorded.Tenants[kept].Name == given.Tenants[kept].Name {
		kept++
	}
	if err := movedTenant(recorded, given, kept); err != nil {
		return Change{}, err
	}
	var c Change
	for i := range kept {
		rt, gt := recorded.Tenants[i], given.Tenants[i]
		if rt.Ports != gt.Ports {
			return Change{}, fmt.Errorf("tenant %s's ports would be %d/%d, the running lab's are %d/%d: a running tenant "+
				"keeps its ports (set them in the lab file, or give another tenant others)", gt.Name,
				gt.Ports.APIServer, gt.Ports.Konnectivity, rt.Ports.APIServer, rt.Ports.Konnectivity)
		}
		added, removed, err := workerChanges(rt, gt)
		if err != nil {
			return Change{}, err
		}
		c.AddedWorkers, c.RemovedWorkers = append(c.AddedWorkers, added...), append(c.RemovedWorkers, removed...)
	}
	for _, t := range given.Tenants[kept:] {
		c.AddedTenants = append(c.AddedTenants, t.Name)
	}
	c.RemovedTenants = slices.Clone(recorded.Tenants[kept:])
	return c, nil
}

// movedTenant is the error for a running tenant at or after place kept of
// the recorded list that is still in the lab file, at another place (nil
// when there is none): the tenants from kept on are removed or added, not
// moved.
func movedTenant(recorded, given *Lab, kept int) error {
	at := map[string]int{}
	for j, t := range given.Tenants {
		at[t.Name] = j
	}
	for i, t := range recorded.Tenants[kept:] {
		if j, ok := at[t.Name]; ok {
			return fmt.Errorf("running tenant %s would move from place %d to %d of the list: tenants are added and "+
				"removed only at the end of the list (a tenant's pod network and allocated ports follow its place in "+
				"it); to remove an earlier tenant, `labctl down` and up again", t.Name, kept+i+1, j+1)
		}
	}
	return nil
}

// workerChanges are the workers given adds to the running tenant and
// those it no longer has; a worker in both must keep its cards.
func workerChanges(recorded, given Tenant) (added, removed []WorkerRef, err error) {
	was := map[string]Worker{}
	for _, w := range recorded.Workers {
		was[w.Name] = w
	}
	is := map[string]bool{}
	for _, w := range given.Workers {
		is[w.Name] = true
		old, ok := was[w.Name]
		switch {
		case !ok:
			added = append(added, WorkerRef{given.Name, w.Name})
		case !reflect.DeepEqual(old, w):
			return nil, nil, fmt.Errorf("worker %s of running tenant %s would have other GPUs: a running worker keeps its "+
				"cards; remove it and add one of another name", w.Name, given.Name)
		}
	}
	for _, w := range recorded.Workers {
		if !is[w.Name] {
			removed = append(removed, WorkerRef{recorded.Name, w.Name})
		}
	}
	return added, removed, nil
}
