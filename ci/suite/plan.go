package suite

import (
	"context"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// plan places every case on the lab's hardware and groups the cases that
// share a worker's cards into ordered scenarios. Everything else is an
// independent task. The order inside a scenario is the order below.
func (r *runner) plan() []*task {
	l := r.cfg.Lab
	hw := pickHardware(l)
	all := l.TenantNames()
	var tasks []*task
	bySite := map[string]*task{}
	var siteOrder []string
	place := func(s *site, id string, needs []string, run func(context.Context, *T) error, missing string) {
		c := &caseRun{Case: caseByID(id), needs: needs, run: run}
		if s == nil {
			c.skip = "skipped: " + noHardware(missing, l)
			tasks = append(tasks, &task{cases: []*caseRun{c}})
			return
		}
		c.tenants = []string{s.Tenant}
		key := s.String()
		tk, ok := bySite[key]
		if !ok {
			tk = &task{scenario: s.Tenant + " " + s.Worker.Name + " cards"}
			bySite[key] = tk
			siteOrder = append(siteOrder, key)
		}
		tk.cases = append(tk.cases, c)
	}
	indep := func(id string, tenants []string, run func(context.Context, *T) error, skip string) {
		c := &caseRun{Case: caseByID(id), tenants: tenants, run: run, skip: skip}
		tasks = append(tasks, &task{cases: []*caseRun{c}})
	}

	indep("TC-01", all, r.tc01, "")
	indep("TC-02", all, r.tc02, "")
	indep("TC-04", all, r.tc04, "")
	indep("TC-08", all, r.tc08, "")
	skip15 := ""
	if len(all) < 2 {
		skip15 = "skipped: the lab has one tenant; credentials can only be tried against another tenant"
	}
	indep("TC-15", all, r.tc15, skip15)

	const big = "worker with exactly one card of at least 80000 MB"
	var b *bigCard
	if hw.BigCard != nil {
		b = &bigCard{site: *hw.BigCard}
	}
	bc := func(f func(*bigCard, context.Context, *T) error) func(context.Context, *T) error {
		return func(ctx context.Context, t *T) error { return f(b, ctx, t) }
	}
	place(hw.BigCard, "TC-03", nil, bc((*bigCard).tc03), big)
	place(hw.BigCard, "TC-05", []string{"TC-03"}, bc((*bigCard).tc05), big)
	place(hw.BigCard, "TC-06", nil, bc((*bigCard).tc06), big)
	place(hw.BigCard, "TC-07", []string{"TC-03"}, bc((*bigCard).tc07), big)
	place(hw.BigCard, "TC-13", []string{"TC-03"}, bc((*bigCard).tc13), big)
	place(hw.BigCard, "TC-16", nil, bc((*bigCard).tc16), big)

	const multi = "worker with two or more cards"
	var m *multiCard
	if hw.MultiCard != nil {
		m = &multiCard{site: *hw.MultiCard}
	}
	mc := func(f func(*multiCard, context.Context, *T) error) func(context.Context, *T) error {
		return func(ctx context.Context, t *T) error { return f(m, ctx, t) }
	}
	place(hw.MultiCard, "TC-09", nil, mc((*multiCard).tc09), multi)
	place(hw.MultiCard, "TC-10", nil, mc((*multiCard).tc10), multi)
	place(hw.MultiCard, "TC-11", nil, mc((*multiCard).tc11), multi)

	place(hw.TypeSite, "TC-12", nil, func(ctx context.Context, t *T) error {
		return tc12(ctx, t, *hw.TypeSite, hw.LackingType)
	}, "worker that lacks some GPU type of the lab or the catalog")
	place(hw.Burst, "TC-14", nil, func(ctx context.Context, t *T) error {
		return tc14(ctx, t, *hw.Burst)
	}, "worker whose cards hold ten small pods at once")

	for _, k := range siteOrder {
		tasks = append(tasks, bySite[k])
	}
	return tasks
}

// labOf is a helper for cases needing the spec.
func (t *T) lab() *lab.Lab { return t.r.cfg.Lab }
