package suite

import (
	"context"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// stage is one lab as the plan sees it: where each GPU case runs and the
// state the cases of a scenario share. A case's body gets it.
type stage struct {
	r   *runner
	lab *lab.Lab
	hw  hardware
	// share and pair are the sharing and two-card scenarios (nil when
	// the lab has no card for them, and then no case runs on them).
	share *shareCard
	pair  *multiCard
}

func newStage(r *runner) *stage {
	s := &stage{r: r, lab: r.cfg.Lab, hw: pickHardware(r.cfg.Lab)}
	if s.hw.Share != nil {
		s.share = &shareCard{place: *s.hw.Share}
	}
	if s.hw.Pair != nil {
		s.pair = &multiCard{place: *s.hw.Pair}
	}
	return s
}

// plan places every declared case on the lab's hardware. Cases that share
// state on the same cards form an ordered scenario; a scenario holds its
// cards' locks while it runs, so scenarios on different cards (of one
// worker or not) run at the same time and scenarios on a common card take
// turns. TC-14 holds every card of its worker (placement.WholeNode).
// Everything else, and every case the lab cannot run, is a task of its
// own; those come first, in declaration order, then the scenarios.
func (r *runner) plan() []*task {
	s := newStage(r)
	var tasks []*task
	sc := scenarios{byKey: map[string]*task{}}
	for _, d := range declared {
		c := &caseRun{Case: d.Case, needs: d.after}
		at := d.place(s, d.Case)
		if at.skip != "" {
			c.skip = "skipped: " + at.skip
		} else {
			c.run = func(ctx context.Context, t *caseT) error { return d.run(ctx, t, s) }
		}
		if at.skip != "" || len(at.cards) == 0 {
			c.tenants = at.tenants
			tasks = append(tasks, &task{cases: []*caseRun{c}})
			continue
		}
		sc.add(at.cards, c)
	}
	return append(tasks, sc.order...)
}

// scenarios groups placed cases by the cards they hold, in the order each
// set of cards first appears.
type scenarios struct {
	byKey map[string]*task
	order []*task
}

func (sc *scenarios) add(on []placement, c *caseRun) {
	var keys, names []string
	for _, pl := range on {
		keys = append(keys, pl.keys()...)
		names = append(names, pl.String())
		c.tenants = appendNew(c.tenants, pl.Tenant)
	}
	key := strings.Join(keys, " ")
	tk, ok := sc.byKey[key]
	if !ok {
		tk = &task{scenario: strings.Join(names, " + "), locks: keys}
		sc.byKey[key] = tk
		sc.order = append(sc.order, tk)
	}
	tk.cases = append(tk.cases, c)
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
