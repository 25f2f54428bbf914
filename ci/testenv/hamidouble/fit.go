package hamidouble

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// card is one registered NVIDIA card with its current usage.
type card struct {
	UUID       string
	Index      int
	Type       string
	Health     bool
	Count      int // split count: how many grants the card takes
	TotalMem   int // MB
	TotalCores int // 100 = one whole card
	Used       int // grants
	UsedMem    int
	UsedCores  int
}

// nodeCards is a node as Filter sees it: its NVIDIA cards with usage, and
// the UUIDs cordoned through hami.io/device-cordon.
type nodeCards struct {
	Name     string
	Cards    []card
	Cordoned []string
}

// nodeFit is the outcome of fitting one pod onto one node.
type nodeFit struct {
	Node string
	// Devices is the grant per container when the pod fits.
	Devices gpus.PodDevices
	// Score is the node's usage score before this pod (what HAMi's
	// FilteringSucceed event shows and its node policy sorts on).
	Score float64
	// Reason is "" when the pod fits, else HAMi's FailedNodes value:
	// "<failing>/<total> <Reason>" per card-level reason, or a bare
	// node-level reason such as NodeInsufficientDevice.
	Reason string
	// CardReasons lists the card-level reasons of a failure (no node-level
	// ones), for HAMi's per-reason FilteringFailed events.
	CardReasons []string
}

// fits reports whether the pod fits the node.
func (f nodeFit) fits() bool { return f.Reason == "" }

// scoreWeight is HAMi's default weight of each usage term.
const scoreWeight = 10

// nodeScore is HAMi's node usage score: 10·(grants/slots + cores/total cores
// + memory/total memory), summed over the node's cards.
func nodeScore(cards []card) float64 {
	var used, usedCores, usedMem, total, totalCores, totalMem int
	for _, c := range cards {
		used += c.Used
		usedCores += c.UsedCores
		usedMem += c.UsedMem
		total += c.Count
		totalCores += c.TotalCores
		totalMem += c.TotalMem
	}
	return scoreWeight * (ratio(used, total) + ratio(usedCores, totalCores) + ratio(usedMem, totalMem))
}

// cardScore is the same score for one card; it orders cards for the GPU policy.
func cardScore(c card) float64 {
	return scoreWeight * (ratio(c.Used, c.Count) + ratio(c.UsedCores, c.TotalCores) + ratio(c.UsedMem, c.TotalMem))
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// fitNode decides whether the pod fits the node and on which cards, the way
// HAMi's Filter does (v2.10.0 pkg/scheduler/score.go:81, fitInDevices): containers in order, each one's cards
// ordered by the GPU policy (spread: most-loaded first; binpack:
// least-loaded first; equal scores keep index order) and then walked from the
// end, checking each card in HAMi's order. Usage granted to one container
// counts for the next.
func fitNode(n nodeCards, req podRequest, faults Faults) nodeFit {
	out := nodeFit{Node: n.Name, Score: nodeScore(n.Cards)}
	cards := slices.Clone(n.Cards)
	policy := req.GPUPolicy
	if faults.IgnorePolicy && policy == "binpack" {
		policy = "spread"
	}
	for _, cr := range req.Containers {
		if cr.Nums == 0 {
			out.Devices = append(out.Devices, nil)
			continue
		}
		need := cr.Nums
		if need > len(cards) {
			if !faults.IgnoreCount {
				out.Reason = gpus.ReasonNodeInsufficientDevice
				out.Devices = nil
				return out
			}
			need = len(cards)
		}
		order := make([]int, len(cards))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool {
			sa, sb := cardScore(cards[order[a]]), cardScore(cards[order[b]])
			if policy == "binpack" {
				return sa < sb
			}
			return sa > sb
		})
		var grant []gpus.ContainerDevice
		failed := map[string]int{}
		for i := len(order) - 1; i >= 0 && need > 0; i-- {
			c := &cards[order[i]]
			mem, reason := checkCard(*c, n.Cordoned, cr, req, policy, faults)
			if reason != "" {
				failed[reason]++
				continue
			}
			cores := min(cr.Cores, 100)
			grant = append(grant, gpus.ContainerDevice{UUID: c.UUID, Type: gpus.DeviceVendor, MemoryMB: mem, Cores: cores})
			c.Used++
			c.UsedMem += mem
			c.UsedCores += cores
			need--
		}
		if need > 0 {
			out.Devices = nil
			out.Reason, out.CardReasons = cardReasons(failed, len(cards))
			return out
		}
		out.Devices = append(out.Devices, grant)
	}
	return out
}

// checkCard runs HAMi's per-card checks in order and returns the memory the
// grant would take, or the first failing reason.
func checkCard(c card, cordoned []string, cr containerRequest, req podRequest, policy string, f Faults) (int, string) {
	switch {
	case !c.Health:
		return 0, gpus.ReasonCardNotHealth
	case slices.Contains(cordoned, c.UUID):
		return 0, gpus.ReasonCardCordoned
	case !f.IgnoreTypeFilter && !typeAllowed(c.Type, req.UseTypes, req.NoUseTypes):
		return 0, gpus.ReasonCardTypeMismatch
	case !uuidAllowed(c.UUID, req.UseUUIDs, req.NoUseUUIDs):
		return 0, gpus.ReasonCardUUIDMismatch
	case !f.IgnoreSplitCount && c.Count <= c.Used:
		return 0, gpus.ReasonCardTimeSlicing
	case policy == "mutex" && c.Used > 0:
		return 0, gpus.ReasonExclusiveConflict
	case f.NoSharing && c.Used > 0:
		// Deliberately wrong: a double that never shares a card.
		return 0, gpus.ReasonExclusiveConflict
	}
	cores := min(cr.Cores, 100)
	mem := cr.MemMB
	if mem == 0 && cr.MemPercent != percentUnset {
		mem = c.TotalMem * cr.MemPercent / 100
	}
	switch {
	case !f.IgnoreMemory && c.TotalMem-c.UsedMem < mem:
		return 0, gpus.ReasonCardInsufficientMemory
	case !f.IgnoreCores && c.TotalCores-c.UsedCores < cores:
		return 0, gpus.ReasonCardInsufficientCore
	case !f.IgnoreCores && c.TotalCores == 100 && cores == 100 && c.Used > 0:
		return 0, gpus.ReasonExclusiveConflict
	case !f.IgnoreCores && c.TotalCores > 0 && c.UsedCores >= c.TotalCores && cores == 0:
		return 0, gpus.ReasonComputeUnitsExhausted
	}
	return mem, ""
}

// typeAllowed applies nvidia.com/use-gputype and nouse-gputype: comma lists
// matched as case-insensitive substrings of the card type.
func typeAllowed(cardType string, use, noUse []string) bool {
	t := strings.ToLower(cardType)
	if len(use) > 0 && !slices.ContainsFunc(use, func(s string) bool { return strings.Contains(t, strings.ToLower(s)) }) {
		return false
	}
	return !slices.ContainsFunc(noUse, func(s string) bool { return strings.Contains(t, strings.ToLower(s)) })
}

func uuidAllowed(uuid string, use, noUse []string) bool {
	if len(use) > 0 && !slices.Contains(use, uuid) {
		return false
	}
	return !slices.Contains(noUse, uuid)
}

// cardReasons renders "<failing>/<total> <Reason>" per reason, sorts the
// rendered strings and joins them with ", ", as common.GenReason does
// (pkg/device/common/common.go@v2.10.0): "1/8 CardInsufficientMemory,
// 7/8 CardUuidMismatch" for a pod pinned to one full card of eight. The
// reasons alone come back sorted by name, for the per-reason events.
func cardReasons(failed map[string]int, total int) (string, []string) {
	reasons := make([]string, 0, len(failed))
	parts := make([]string, 0, len(failed))
	for r, n := range failed {
		reasons = append(reasons, r)
		parts = append(parts, fmt.Sprintf("%d/%d %s", n, total, r))
	}
	sort.Strings(reasons)
	sort.Strings(parts)
	if len(parts) == 0 {
		return "AllocatedCardsInsufficientRequest", nil
	}
	return strings.Join(parts, ", "), reasons
}

// pickNode chooses among fitting nodes by node policy, as HAMi's Filter
// does (pkg/scheduler/scheduler.go@v2.10.0: sort.Sort(nodeScores), then the
// last entry): NodeScoreList.Less (pkg/scheduler/policy/node_policy.go
// @v2.10.0) sorts descending for "spread" and ascending for anything else
// (binpack, the default, or an unknown or empty value), so spread takes the
// lowest usage score and binpack the highest. The score is the node's usage
// before the pod (ComputeDefaultScore; NVIDIA's ScoreNode adds 0,
// pkg/device/nvidia/device.go@v2.10.0). On equal scores the later node in
// the candidate list wins here; in HAMi the list is built by one goroutine
// per node, so which of equal nodes wins is not defined.
func pickNode(fits []nodeFit, nodePolicy string) (nodeFit, bool) {
	var ok []nodeFit
	for _, f := range fits {
		if f.fits() {
			ok = append(ok, f)
		}
	}
	if len(ok) == 0 {
		return nodeFit{}, false
	}
	sort.SliceStable(ok, func(a, b int) bool {
		if nodePolicy == "spread" {
			return ok[a].Score > ok[b].Score
		}
		return ok[a].Score < ok[b].Score
	})
	return ok[len(ok)-1], true
}

// nodePolicy is the node policy Filter applies to the request, after the
// node-policy faults.
func (f Faults) nodePolicy(req podRequest) string {
	policy := req.NodePolicy
	if f.IgnoreNodePolicyAnnotation {
		policy = req.DefaultNodePolicy
	}
	if f.InvertNodePolicy {
		if policy == "spread" {
			return "binpack"
		}
		return "spread"
	}
	return policy
}
