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
	// Sharing is the sample the tenant's section leads with: the moment
	// most settled pods shared one card (nil when no sample shows two).
	Sharing *sampleView
	// Others are the tenant's other samples, in time order.
	Others []sampleView
}

// sampleView is one picture of a tenant's cards at a moment of the run.
type sampleView struct {
	Moment, When          string
	Nodes                 []nodeView
	Cards, Pods           int
	UsedMB, TotalMB       int
	UsedCores, TotalCores int
	// Shared is the most settled pods holding one card; Unsettled counts
	// the holders still binding or starting.
	Shared, Unsettled int
	// Deleting are the pods left out because they were being deleted.
	Deleting []string
	at       time.Time
	usage    float64 // of the card Shared counts, for ties
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
	// Settled counts the holders that were Running.
	Settled int
}

// segment is one pod's part of a bar; Pct is of the bar's width.
type segment struct {
	Pct       float64
	Color     int
	Label     string
	Title     string
	Unsettled bool
}

type holderView struct {
	Pod, Namespace, Case, Phase string
	// State is what an unsettled pod was still doing ("bound, starting").
	State                  string
	MemoryMB, Cores, Color int
}

// newTenants turns the sampled GPU states into card pictures, grouped by
// tenant in the order of results.Run.Tenants (the lab's order), each
// tenant leading with its sharing moment, then its other samples in time
// order. A pod keeps one colour across all cards and samples of its
// tenant, so a multi-GPU pod or a pod seen twice is easy to follow.
func newTenants(ts []results.TenantState, runStart time.Time) []tenantView {
	var out []tenantView
	index := map[string]int{}
	colors := map[string]map[string]int{}
	var samples [][]sampleView
	for _, t := range ts {
		if _, ok := index[t.Name]; !ok {
			index[t.Name] = len(out)
			out = append(out, tenantView{Name: t.Name})
			samples = append(samples, nil)
			colors[t.Name] = map[string]int{}
		}
	}
	sorted := slices.Clone(ts)
	slices.SortStableFunc(sorted, func(a, b results.TenantState) int { return a.At.Compare(b.At) })
	for _, t := range sorted {
		i := index[t.Name]
		samples[i] = append(samples[i], newSample(t, runStart, colors[t.Name]))
	}
	for i := range out {
		lead := sharingMoment(samples[i])
		for j, s := range samples[i] {
			if j == lead {
				out[i].Sharing = &samples[i][j]
				continue
			}
			out[i].Others = append(out[i].Others, s)
		}
	}
	return out
}

func newSample(t results.TenantState, runStart time.Time, colors map[string]int) sampleView {
	sv := sampleView{Moment: t.Moment, Deleting: t.Deleting, at: t.At}
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
			cv := newCard(c, i, colors)
			for _, h := range cv.Holders {
				if !pods[h.Namespace+"/"+h.Pod] && h.State != "" {
					sv.Unsettled++
				}
				pods[h.Namespace+"/"+h.Pod] = true
			}
			if u := usage(cv); cv.Settled > sv.Shared || cv.Settled == sv.Shared && u > sv.usage {
				sv.Shared, sv.usage = cv.Settled, u
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
	return sv
}

// sharingMoment picks the sample a tenant's pictures lead with: the one
// where the most settled (Running) pods share one card — the lab exists
// to prove that several pods share a card — at least two; between equals
// the fuller card (memory and compute as fractions of the card, summed),
// then the earlier sample. -1 when no sample shows two pods on a card.
func sharingMoment(samples []sampleView) int {
	best := -1
	for i, s := range samples {
		if s.Shared < 2 {
			continue
		}
		if best < 0 || s.Shared > samples[best].Shared || s.Shared == samples[best].Shared && s.usage > samples[best].usage {
			best = i
		}
	}
	return best
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
		if h.State == "" {
			cv.Settled++
		}
		cv.Holders = append(cv.Holders, holderView{Pod: h.Pod, Namespace: h.Namespace, Case: h.Case, Phase: h.Phase,
			State: h.State, MemoryMB: h.MemoryMB, Cores: h.Cores, Color: color})
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
		title := h.Namespace + "/" + h.Pod + ": " + strconv.Itoa(a) + unit
		if h.State != "" {
			title += " (" + h.State + ")"
		}
		segs = append(segs, segment{Pct: p, Color: h.Color, Label: strconv.Itoa(a) + unit, Title: title, Unsettled: h.State != ""})
	}
	return segs, max(0, 100-used)
}
