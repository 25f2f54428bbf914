package suite

import (
	"context"
	"fmt"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// plan places every case on the lab's hardware. Cases that share state on
// the same cards form an ordered scenario; a scenario holds its cards' locks
// while it runs, so scenarios on different cards (of one worker or not) run
// at the same time and scenarios on a common card take turns. TC-14 holds
// every card of its worker (placement.WholeNode). Everything else is an
// independent task.
func (r *runner) plan() []*task {
	l := r.cfg.Lab
	hw := pickHardware(l)
	split := l.HAMi.SplitCount
	all := l.TenantNames()
	var tasks []*task
	byKey := map[string]*task{}
	var order []string
	// place adds a case to the scenario on p's cards; a nil p, or a
	// non-empty impossible, skips it saying which hardware it needs.
	place := func(p []placement, id string, needs []string, run func(context.Context, *caseT) error, impossible string) {
		c := &caseRun{Case: caseByID(id), needs: needs, run: run}
		if len(p) == 0 || impossible != "" {
			if impossible == "" {
				what := c.Needs
				if strings.HasPrefix(what, "TC-03") {
					what = needsShare
				}
				impossible = noHardware(strings.TrimPrefix(what, "a "), l)
			}
			c.skip = "skipped: " + impossible
			tasks = append(tasks, &task{cases: []*caseRun{c}})
			return
		}
		var keys, names []string
		for _, pl := range p {
			keys = append(keys, pl.keys()...)
			names = append(names, pl.String())
			c.tenants = appendNew(c.tenants, pl.Tenant)
		}
		key := strings.Join(keys, " ")
		tk, ok := byKey[key]
		if !ok {
			tk = &task{scenario: strings.Join(names, " + "), locks: keys}
			byKey[key] = tk
			order = append(order, key)
		}
		tk.cases = append(tk.cases, c)
	}
	indep := func(id string, tenants []string, run func(context.Context, *caseT) error, skip string) {
		c := &caseRun{Case: caseByID(id), tenants: tenants, run: run, skip: skip}
		tasks = append(tasks, &task{cases: []*caseRun{c}})
	}
	one := func(p *placement) []placement {
		if p == nil {
			return nil
		}
		return []placement{*p}
	}
	splitBelow := func(n int) string {
		if split < n {
			return fmt.Sprintf("the lab's hami.splitCount is %d; the case needs %d pods on one card (set hami.splitCount ≥ %d)", split, n, n)
		}
		return ""
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
	indep("TC-20", all, r.tc20, "")

	var sh *shareCard
	if hw.Share != nil {
		sh = &shareCard{place: *hw.Share}
	}
	onShare := func(f func(*shareCard, context.Context, *caseT) error) func(context.Context, *caseT) error {
		return func(ctx context.Context, t *caseT) error { return f(sh, ctx, t) }
	}
	share := one(hw.Share)
	place(share, "TC-03", nil, onShare((*shareCard).tc03), splitBelow(3))
	place(share, "TC-05", []string{"TC-03"}, onShare((*shareCard).tc05), splitBelow(3))
	place(share, "TC-06", nil, onShare((*shareCard).tc06), "")
	place(share, "TC-07", []string{"TC-03"}, onShare((*shareCard).tc07), splitBelow(4))
	place(share, "TC-13", []string{"TC-03"}, onShare((*shareCard).tc13), splitBelow(3))
	place(share, "TC-16", nil, onShare((*shareCard).tc16), "")
	// TC-18's needs add the device plugin, which is checked as it runs;
	// without the card the skip names the card alone.
	noShare := ""
	if share == nil {
		noShare = noHardware(strings.TrimPrefix(needsShare, "a "), l)
	}
	place(share, "TC-18", nil, onShare((*shareCard).tc18), noShare)

	var m *multiCard
	if hw.Pair != nil {
		m = &multiCard{place: *hw.Pair}
	}
	onPair := func(f func(*multiCard, context.Context, *caseT) error) func(context.Context, *caseT) error {
		return func(ctx context.Context, t *caseT) error { return f(m, ctx, t) }
	}
	place(one(hw.Pair), "TC-09", nil, onPair((*multiCard).tc09), "")
	place(one(hw.Pair), "TC-11", nil, onPair((*multiCard).tc11), splitBelow(2))

	if hw.Count != nil {
		s := *hw.Count
		indep("TC-10", []string{s.Tenant}, func(ctx context.Context, t *caseT) error { return tc10(ctx, t, s) }, "")
	} else {
		indep("TC-10", nil, nil, "skipped: "+noHardware("worker with a card", l))
	}
	place(one(hw.Type), "TC-12", nil, func(ctx context.Context, t *caseT) error {
		return tc12(ctx, t, *hw.Type, hw.LackingType)
	}, "")
	place(one(hw.Burst), "TC-14", nil, func(ctx context.Context, t *caseT) error {
		return tc14(ctx, t, *hw.Burst)
	}, "")
	place(hw.Nodes, "TC-17", nil, func(ctx context.Context, t *caseT) error {
		return tc17(ctx, t, hw.Nodes)
	}, "")
	// TC-19's needs add what finishes the bind, which every platform has
	// (HAMi's device plugin, or gpu-lab's finalizer in its place): without
	// a card the skip names the card alone.
	noCard := ""
	if hw.Bind == nil {
		noCard = noHardware("worker with a card", l)
	}
	place(one(hw.Bind), "TC-19", nil, func(ctx context.Context, t *caseT) error {
		return tc19(ctx, t, *hw.Bind)
	}, noCard)

	for _, k := range order {
		tasks = append(tasks, byKey[k])
	}
	return tasks
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// lab is the spec of the run.
func (t *caseT) lab() *lab.Lab { return t.r.cfg.Lab }
