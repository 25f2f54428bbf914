package report

import (
	"slices"
	"strconv"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// paletteSize is the number of pod colours defined in the template's CSS.
const paletteSize = 10

type tenantView struct {
	Name string
	// Busiest draws each card once, from the sample where it was most
	// used; set when the tenant has more than one sample.
	Busiest []nodeView
	Samples []sampleView
}

// sampleView is one picture of a tenant's cards at a moment of the run.
type sampleView struct {
	Moment, When          string
	Nodes                 []nodeView
	Cards, Pods           int
	UsedMB, TotalMB       int
	UsedCores, TotalCores int
}

type nodeView struct {
	Name  string
	Cards []cardView
}

type cardView struct {
	UUID, Type                  string
	Index                       int
	MemoryMB, UsedMB, FreeMB    int
	Cores, UsedCores, FreeCores int
	MemSegs, CoreSegs           []segment
	MemFreePct, CoreFreePct     float64
	MemLimitPct, CoreLimitPct   float64 // where the card ends on an over-committed bar
	MemOver, CoreOver           bool
	Holders                     []holderView
	// Busiest marks a card drawn in the busiest picture; Moment and When
	// say which sample it comes from.
	Busiest      bool
	Moment, When string
}

// segment is one pod's part of a bar; Pct is of the bar's width.
type segment struct {
	Pct   float64
	Color int
	Label string
	Title string
}

type holderView struct {
	Pod, Namespace, Case, Phase string
	MemoryMB, Cores, Color      int
}

// newTenants turns the sampled GPU states into card pictures, grouped by
// tenant (in order of first appearance) with each tenant's samples in time
// order. A pod keeps one colour across all cards and samples of its
// tenant, so a multi-GPU pod or a pod seen twice is easy to follow.
func newTenants(ts []results.TenantState, runStart time.Time) []tenantView {
	var out []tenantView
	index := map[string]int{}
	colors := map[string]map[string]int{}
	for _, t := range ts {
		if _, ok := index[t.Name]; !ok {
			index[t.Name] = len(out)
			out = append(out, tenantView{Name: t.Name})
			colors[t.Name] = map[string]int{}
		}
	}
	sorted := slices.Clone(ts)
	slices.SortStableFunc(sorted, func(a, b results.TenantState) int { return a.At.Compare(b.At) })
	for _, t := range sorted {
		tv := &out[index[t.Name]]
		sv := sampleView{Moment: t.Moment}
		if !t.At.IsZero() {
			sv.When = t.At.UTC().Format("15:04:05")
			if !runStart.IsZero() {
				sv.When = "+" + human(t.At.Sub(runStart))
			}
		}
		pods := map[string]bool{}
		for _, n := range t.Nodes {
			nv := nodeView{Name: n.Name}
			for i, c := range n.Cards {
				cv := newCard(c, i, colors[t.Name])
				for _, h := range c.Holders {
					pods[h.Namespace+"/"+h.Pod] = true
				}
				sv.Cards++
				sv.UsedMB += cv.UsedMB
				sv.TotalMB += c.MemoryMB
				sv.UsedCores += cv.UsedCores
				sv.TotalCores += c.Cores
				nv.Cards = append(nv.Cards, cv)
			}
			sv.Nodes = append(sv.Nodes, nv)
		}
		sv.Pods = len(pods)
		tv.Samples = append(tv.Samples, sv)
	}
	for i := range out {
		if len(out[i].Samples) > 1 {
			out[i].Busiest = busiest(out[i].Samples)
		}
	}
	return out
}

// busiest picks, for every card seen in the samples, its picture from the
// sample where it was most used (memory and compute as fractions of the
// card, summed); the earliest of equals. A scenario samples its card while
// its pods hold it, so a card the end of the run finds empty is still drawn
// full. Nodes and cards keep the order they first appear in.
func busiest(samples []sampleView) []nodeView {
	var out []nodeView
	nodeAt := map[string]int{}
	cardAt := map[string][2]int{}
	for _, s := range samples {
		for _, n := range s.Nodes {
			ni, ok := nodeAt[n.Name]
			if !ok {
				ni = len(out)
				nodeAt[n.Name] = ni
				out = append(out, nodeView{Name: n.Name})
			}
			for _, c := range n.Cards {
				c.Busiest, c.Moment, c.When = true, s.Moment, s.When
				key := n.Name + "/" + c.UUID
				at, seen := cardAt[key]
				switch {
				case !seen:
					cardAt[key] = [2]int{ni, len(out[ni].Cards)}
					out[ni].Cards = append(out[ni].Cards, c)
				case usage(c) > usage(out[at[0]].Cards[at[1]]):
					out[at[0]].Cards[at[1]] = c
				}
			}
		}
	}
	return out
}

func usage(c cardView) float64 {
	u := 0.0
	if c.MemoryMB > 0 {
		u += float64(c.UsedMB) / float64(c.MemoryMB)
	}
	if c.Cores > 0 {
		u += float64(c.UsedCores) / float64(c.Cores)
	}
	return u
}

func newCard(c results.Card, index int, colors map[string]int) cardView {
	cv := cardView{UUID: c.UUID, Type: c.Type, Index: index, MemoryMB: c.MemoryMB, Cores: c.Cores}
	for _, h := range c.Holders {
		key := h.Namespace + "/" + h.Pod
		color, ok := colors[key]
		if !ok {
			color = len(colors) % paletteSize
			colors[key] = color
		}
		cv.UsedMB += h.MemoryMB
		cv.UsedCores += h.Cores
		cv.Holders = append(cv.Holders, holderView{Pod: h.Pod, Namespace: h.Namespace, Case: h.Case, Phase: h.Phase,
			MemoryMB: h.MemoryMB, Cores: h.Cores, Color: color})
	}
	cv.FreeMB = max(0, c.MemoryMB-cv.UsedMB)
	cv.FreeCores = max(0, c.Cores-cv.UsedCores)
	cv.MemOver = cv.UsedMB > c.MemoryMB
	cv.CoreOver = cv.UsedCores > c.Cores
	cv.MemSegs, cv.MemFreePct = segments(cv.Holders, c.MemoryMB, func(h holderView) int { return h.MemoryMB }, " MB")
	cv.CoreSegs, cv.CoreFreePct = segments(cv.Holders, c.Cores, func(h holderView) int { return h.Cores }, " %")
	if cv.MemOver {
		cv.MemLimitPct = float64(c.MemoryMB) / float64(cv.UsedMB) * 100
	}
	if cv.CoreOver {
		cv.CoreLimitPct = float64(c.Cores) / float64(cv.UsedCores) * 100
	}
	return cv
}

// segments splits a bar among holders. When holders exceed the card (an
// over-commit the suite should have caught) the bar is scaled to their sum
// so every holder stays visible, and the card is flagged.
func segments(hs []holderView, total int, amount func(holderView) int, unit string) ([]segment, float64) {
	sum := 0
	for _, h := range hs {
		sum += amount(h)
	}
	scale := max(total, sum)
	if scale <= 0 {
		return nil, 100
	}
	var segs []segment
	used := 0.0
	for _, h := range hs {
		a := amount(h)
		if a <= 0 {
			continue
		}
		p := float64(a) / float64(scale) * 100
		used += p
		segs = append(segs, segment{Pct: p, Color: h.Color, Label: strconv.Itoa(a) + unit,
			Title: h.Namespace + "/" + h.Pod + ": " + strconv.Itoa(a) + unit})
	}
	return segs, max(0, 100-used)
}
