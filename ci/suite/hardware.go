package suite

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// Sizes of the seed lab's workloads (hami-observed.md §3).
const (
	sliceMB      = 20000 // TC-03/07/13: three fit one 80 GB card, a fourth still fits by memory
	sliceCores   = 30    // ... but not by cores: 4 × 30 > 100
	bigCardMinMB = 4 * sliceMB
	smallMB      = 1000 // TC-09/11/12/14/16: small slices (hami-observed §3g)
	smallCores   = 10
	burstPods    = 10 // TC-14
	burstCores   = 5
	oversizedMB  = 90000 // TC-06 on an 81920 MB card
)

// site is one worker of one tenant the suite runs GPU workloads on.
type site struct {
	Tenant string
	Worker lab.Worker
	Cards  []lab.Card
}

func (s site) String() string { return s.Tenant + "/" + s.Worker.Name }

// slots is how many pods the worker's cards can hold (HAMi's split count).
func (s site) slots(split int) int { return split * len(s.Cards) }

// hardware is what the lab spec offers to the cases, decided before any
// API call so a case can be skipped with a reason up front.
type hardware struct {
	// BigCard: a worker with exactly one card of at least 80000 MB
	// (TC-03/05/06/07/13/16).
	BigCard *site
	// MultiCard: a worker with at least two cards (TC-09/10/11).
	MultiCard *site
	// TypeSite and LackingType: a worker and a GPU type none of its cards
	// has (TC-12).
	TypeSite    *site
	LackingType string
	// Burst: a worker that holds ten small pods at once (TC-14).
	Burst *site
}

func sites(l *lab.Lab) []site {
	var out []site
	for _, t := range l.Tenants {
		for _, w := range t.Workers {
			out = append(out, site{Tenant: t.Name, Worker: w, Cards: w.Cards()})
		}
	}
	return out
}

// pickHardware chooses where each GPU case runs. Independent sites are
// preferred for different scenarios so they can run at the same time.
func pickHardware(l *lab.Lab) hardware {
	var hw hardware
	all := sites(l)
	for i := range all {
		s := &all[i]
		if hw.BigCard == nil && len(s.Cards) == 1 && s.Cards[0].MemoryMB >= bigCardMinMB {
			hw.BigCard = s
		}
	}
	for i := range all {
		s := &all[i]
		if len(s.Cards) >= 2 && (hw.MultiCard == nil || (hw.BigCard != nil && hw.MultiCard.Tenant == hw.BigCard.Tenant && s.Tenant != hw.BigCard.Tenant)) {
			hw.MultiCard = s
		}
	}
	// TC-12 prefers the multi-card worker (its scenario is shorter), then any.
	order := []*site{}
	if hw.MultiCard != nil {
		order = append(order, hw.MultiCard)
	}
	for i := range all {
		order = append(order, &all[i])
	}
	for _, s := range order {
		if t := lackingType(l, *s); t != "" {
			hw.TypeSite, hw.LackingType = s, t
			break
		}
	}
	// TC-14 prefers a worker no scenario uses, then the multi-card worker,
	// then the big card.
	used := func(s *site) bool {
		for _, u := range []*site{hw.BigCard, hw.MultiCard, hw.TypeSite} {
			if u != nil && u.String() == s.String() {
				return true
			}
		}
		return false
	}
	fits := func(s *site) bool {
		mem := 0
		for _, c := range s.Cards {
			mem += c.MemoryMB
		}
		return s.slots(l.HAMi.SplitCount) >= burstPods && mem >= burstPods*smallMB && len(s.Cards)*100 >= burstPods*burstCores
	}
	for i := range all {
		if s := &all[i]; !used(s) && fits(s) {
			hw.Burst = s
			break
		}
	}
	for _, s := range []*site{hw.MultiCard, hw.TypeSite, hw.BigCard} {
		if hw.Burst == nil && s != nil && fits(s) {
			hw.Burst = s
		}
	}
	return hw
}

// lackingType is a GPU type from the lab (other tenants first) or the
// catalog that HAMi's use-gputype filter (case-insensitive substring of the
// card type) matches on none of the site's cards.
func lackingType(l *lab.Lab, s site) string {
	var candidates []string
	for _, o := range sites(l) {
		if o.Tenant != s.Tenant {
			for _, c := range o.Cards {
				candidates = append(candidates, c.Type)
			}
		}
	}
	for _, n := range lab.CatalogNames() {
		candidates = append(candidates, lab.Catalog[n].Type)
	}
	for _, want := range candidates {
		if want != "" && !typeMatches(s.Cards, want) {
			return want
		}
	}
	return ""
}

// typeMatches is HAMi's use-gputype rule for one value.
func typeMatches(cards []lab.Card, want string) bool {
	for _, c := range cards {
		if strings.Contains(strings.ToLower(c.Type), strings.ToLower(want)) {
			return true
		}
	}
	return false
}

// noHardware is the skip reason of a case whose hardware the lab lacks.
func noHardware(what string, l *lab.Lab) string {
	var desc []string
	for _, s := range sites(l) {
		models := map[string]int{}
		for _, c := range s.Cards {
			models[fmt.Sprintf("%s (%d MB)", c.Model, c.MemoryMB)]++
		}
		var m []string
		for k, n := range models {
			m = append(m, fmt.Sprintf("%d× %s", n, k))
		}
		sort.Strings(m)
		desc = append(desc, s.String()+": "+strings.Join(m, ", "))
	}
	return fmt.Sprintf("the lab spec has no %s (it has %s)", what, strings.Join(desc, "; "))
}
