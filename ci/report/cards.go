package report

import (
	"strconv"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// paletteSize is the number of pod colours defined in the template's CSS.
const paletteSize = 10

type tenantView struct {
	Name                  string
	Nodes                 []nodeView
	Cards                 int
	UsedMB, TotalMB       int
	UsedCores, TotalCores int
	Pods                  int
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

// newTenants turns the sampled GPU state into card pictures. A pod keeps
// one colour across all cards of its tenant, so a multi-GPU pod is easy to
// follow from card to card.
func newTenants(ts []results.TenantState) []tenantView {
	var out []tenantView
	for _, t := range ts {
		tv := tenantView{Name: t.Name}
		colors := map[string]int{}
		for _, n := range t.Nodes {
			nv := nodeView{Name: n.Name}
			for i, c := range n.Cards {
				cv := newCard(c, i, colors)
				tv.Cards++
				tv.UsedMB += cv.UsedMB
				tv.TotalMB += c.MemoryMB
				tv.UsedCores += cv.UsedCores
				tv.TotalCores += c.Cores
				nv.Cards = append(nv.Cards, cv)
			}
			tv.Nodes = append(tv.Nodes, nv)
		}
		tv.Pods = len(colors)
		out = append(out, tv)
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
