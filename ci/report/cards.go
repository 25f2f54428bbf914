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
	Name    string
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
	return out
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
