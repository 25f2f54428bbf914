package suite

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// site is one worker of one tenant the suite runs GPU workloads on.
type site struct {
	Tenant string
	Worker lab.Worker
	Cards  []lab.Card
}

func (s site) String() string { return s.Tenant + "/" + s.Worker.Name }

// placement is a case's share of one worker: the cards it pins its pods to
// (HAMi's nvidia.com/use-gpuuuid) and holds while it runs, so cases on other
// cards of the same worker can run at the same time.
type placement struct {
	site
	Use []lab.Card
	// WholeNode: the case holds every card of the worker while it pins its
	// pods to Use. HAMi's node lock is one per node (hami.io/mutex.lock on
	// the Node), so another case's binds on the worker would contend with
	// the case's own, and its timings would measure both.
	WholeNode bool
}

func cardKey(s site, c lab.Card) string { return s.String() + "#" + strconv.Itoa(c.Index) }

// keys are the card locks the placement holds.
func (p placement) keys() []string {
	held := p.Use
	if p.WholeNode {
		held = p.site.Cards
	}
	out := make([]string, len(held))
	for i, c := range held {
		out[i] = cardKey(p.site, c)
	}
	return out
}

// String names the worker and its cards: "tenant-b/worker card 1".
func (p placement) String() string {
	idx := make([]string, len(p.Use))
	for i, c := range p.Use {
		idx[i] = strconv.Itoa(c.Index)
	}
	word := "card"
	if len(idx) > 1 {
		word = "cards"
	}
	return p.site.String() + " " + word + " " + strings.Join(idx, ",")
}

func (p placement) memories() []int {
	out := make([]int, len(p.Use))
	for i, c := range p.Use {
		out[i] = c.MemoryMB
	}
	return out
}

// hardware is where each GPU case runs, decided from the lab spec before
// any API call so a case can be skipped with a reason up front. A nil field
// means the inventory makes the case impossible.
type hardware struct {
	// Share: one card for the sharing scenario (TC-03/05/06/07/13/16),
	// sized from the card.
	Share *placement
	// Pair: two cards of one worker (TC-09, TC-11).
	Pair *placement
	// Count: a GPU worker to ask one card too many of (TC-10); a
	// node-level check that holds nothing, so it takes no card.
	Count *site
	// Type and LackingType: a card of a worker and a GPU type none of that
	// worker's cards has (TC-12).
	Type        *placement
	LackingType string
	// Burst: the fewest cards of one worker that hold ten small pods (TC-14).
	Burst *placement
	// Nodes: two GPU workers of one tenant, every card of both (TC-17).
	Nodes []placement
	// Bind: one card of any worker for one small pod (TC-19).
	Bind *placement
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

// load is how much case time is already placed on each card and worker; a
// later choice goes where it waits least. Different workers beat different
// cards of one worker: binds on one node contend for HAMi's node lock.
type load map[string]int

func (ld load) cost(p placement) int {
	c := ld[p.site.String()]
	for _, k := range p.keys() {
		c += 10 * ld[k]
	}
	return c
}

func (ld load) add(p placement, weight int) {
	ld[p.site.String()] += weight
	for _, k := range p.keys() {
		ld[k] += weight
	}
}

// leastLoaded orders a worker's cards by load, then index.
func (ld load) leastLoaded(s site) []lab.Card {
	cards := append([]lab.Card(nil), s.Cards...)
	sort.SliceStable(cards, func(i, j int) bool { return ld[cardKey(s, cards[i])] < ld[cardKey(s, cards[j])] })
	return cards
}

// cheapest is the candidate with the lowest cost, the first on ties.
func (ld load) cheapest(cands []placement) *placement {
	var best *placement
	for i := range cands {
		if best == nil || ld.cost(cands[i]) < ld.cost(*best) {
			best = &cands[i]
		}
	}
	return best
}

// Scenario weights: roughly how many seconds each placement keeps its cards
// (BenchmarkSuite on the local environment, HAMi's throttling at the lab's
// settings: the sharing scenario 4–5 s, the pair ≈ 1 s, TC-12
// ≈ 0.3 s, TC-14 8–10 s).
const (
	weightShare = 4 // six cases in a row
	weightPair  = 1
	weightType  = 1
	weightBurst = 9 // ten binds contending for one node lock
	weightBind  = 1 // one small pod
)

// pickHardware chooses where each GPU case runs. Each choice adds its load,
// so the order of the choices is the order of preference.
func pickHardware(l *lab.Lab) hardware {
	var hw hardware
	all := sites(l)
	ld := load{}
	if hw.Share = pickShare(all); hw.Share != nil {
		ld.add(*hw.Share, weightShare)
	}
	if hw.Pair = pickPair(all, ld); hw.Pair != nil {
		ld.add(*hw.Pair, weightPair)
		hw.Count = &hw.Pair.site
	} else if len(all) > 0 {
		hw.Count = &all[0]
	}
	// TC-14 before TC-12: it holds a whole worker (WholeNode), and the
	// shorter case then goes where the burst does not contend with it.
	if hw.Burst = pickBurst(all, ld, l.HAMi.SplitCount); hw.Burst != nil {
		ld.add(*hw.Burst, weightBurst)
	}
	if hw.Type, hw.LackingType = pickType(l, all, ld); hw.Type != nil {
		ld.add(*hw.Type, weightType)
	}
	hw.Nodes = pickNodes(l, all)
	// TC-19 needs any one card; chosen last so it changes none of the
	// choices above, on the card where it waits least.
	if hw.Bind = pickBind(all, ld); hw.Bind != nil {
		ld.add(*hw.Bind, weightBind)
	}
	return hw
}

// pickShare: the sharing scenario takes the card with the most memory (the
// first on ties): on the seed lab, tenant-a's A100.
func pickShare(all []site) *placement {
	var share *placement
	for _, s := range all {
		for _, c := range s.Cards {
			if _, ok := shareSizesFor(c.MemoryMB); ok && (share == nil || c.MemoryMB > share.Use[0].MemoryMB) {
				share = &placement{site: s, Use: []lab.Card{c}}
			}
		}
	}
	return share
}

// pickPair: the two least loaded cards of the worker where they wait least.
func pickPair(all []site, ld load) *placement {
	var pairs []placement
	for _, s := range all {
		if len(s.Cards) >= 2 {
			pairs = append(pairs, placement{site: s, Use: ld.leastLoaded(s)[:2]})
		}
	}
	pair := ld.cheapest(pairs)
	if pair != nil {
		sort.Slice(pair.Use, func(i, j int) bool { return pair.Use[i].Index < pair.Use[j].Index })
	}
	return pair
}

// pickBurst: the fewest cards of one worker that hold TC-14's pods, the
// whole worker held.
func pickBurst(all []site, ld load, split int) *placement {
	var bursts []placement
	for _, s := range all {
		if p, ok := burstCards(s, ld.leastLoaded(s), split); ok {
			p.WholeNode = true
			bursts = append(bursts, p)
		}
	}
	return ld.cheapest(bursts)
}

// pickType: a card of a worker that lacks some GPU type, and that type.
func pickType(l *lab.Lab, all []site, ld load) (*placement, string) {
	var types []placement
	lacking := map[string]string{}
	for _, s := range all {
		if t := lackingType(l, s); t != "" {
			lacking[s.String()] = t
			for _, c := range s.Cards {
				types = append(types, placement{site: s, Use: []lab.Card{c}})
			}
		}
	}
	p := ld.cheapest(types)
	if p == nil {
		return nil, ""
	}
	return p, lacking[p.site.String()]
}

// pickNodes: node policy needs two nodes HAMi can choose between: the
// first tenant with two GPU workers.
func pickNodes(l *lab.Lab, all []site) []placement {
	for _, t := range l.Tenants {
		var ws []placement
		for _, s := range all {
			if s.Tenant == t.Name && len(s.Cards) > 0 {
				ws = append(ws, placement{site: s, Use: s.Cards})
			}
		}
		if len(ws) >= 2 && l.HAMi.SplitCount >= 2 {
			return ws[:2]
		}
	}
	return nil
}

// pickBind: any one card, where it waits least.
func pickBind(all []site, ld load) *placement {
	var ones []placement
	for _, s := range all {
		for _, c := range ld.leastLoaded(s) {
			ones = append(ones, placement{site: s, Use: []lab.Card{c}})
		}
	}
	return ld.cheapest(ones)
}

// burstCards takes cards of the worker, in the given order, until they
// hold TC-14's ten pods at once: a grant slot each (the split count), their
// small slices and their cores.
func burstCards(s site, order []lab.Card, split int) (placement, bool) {
	p := placement{site: s}
	for _, c := range order {
		p.Use = append(p.Use, c)
		small := smallMBOf(p.memories())
		mem := 0
		for _, mb := range p.memories() {
			mem += mb / small * small
		}
		if len(p.Use)*split >= burstPods && mem >= burstPods*small && len(p.Use)*100 >= burstPods*burstCores {
			sort.Slice(p.Use, func(i, j int) bool { return p.Use[i].Index < p.Use[j].Index })
			return p, true
		}
	}
	return placement{}, false
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

// inventory describes the lab's GPUs for skip reasons:
// "a/w: 1× L4 (24576 MB); b/w: 2× T4 (16384 MB)".
func inventory(l *lab.Lab) string {
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
	return strings.Join(desc, "; ")
}

// noHardware is the skip reason of a case whose hardware the lab lacks.
func noHardware(what string, l *lab.Lab) string {
	return fmt.Sprintf("the lab spec has no %s (it has %s)", what, inventory(l))
}
