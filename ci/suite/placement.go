package suite

import (
	"fmt"
	"strings"
)

// spot is where the plan puts one case on one lab.
type spot struct {
	// cards: the case joins the scenario that holds these cards; the cases
	// on the same cards run in declaration order, as one task.
	cards []placement
	// tenants: the tenants of a case that is its own task (cards nil).
	tenants []string
	// skip: why the lab cannot run the case; the case is then its own
	// task, reported skipped with this reason.
	skip string
}

// placeRule says where a case runs on the stage's lab, or why it cannot.
// c is the case placed: a rule says what the lab lacks in its words.
type placeRule func(s *stage, c Case) spot

// everyTenant: a case on its own that checks every tenant at once and holds
// no card.
func everyTenant(s *stage, _ Case) spot { return spot{tenants: s.lab.TenantNames()} }

// betweenTenants: every tenant, tried against one another (TC-15), which a
// lab of one tenant cannot do.
func betweenTenants(s *stage, _ Case) spot {
	all := s.lab.TenantNames()
	if len(all) < 2 {
		return spot{tenants: all, skip: "the lab has one tenant; credentials can only be tried against another tenant"}
	}
	return spot{tenants: all}
}

// onGPUWorker: a case on its own in the tenant of the worker it asks too
// many cards of (hardware.Count); a node-level check holds no card.
func onGPUWorker(s *stage, c Case) spot {
	if s.hw.Count == nil {
		return spot{skip: s.lacking(c, "")}
	}
	return spot{tenants: []string{s.hw.Count.Tenant}}
}

// onShareCard: the sharing scenario's card, where the case has up to pods
// pods on the card at once (0: one).
func onShareCard(pods int) placeRule { return onCards(sharingCard, pods, "") }

// onTwoCards: the two-card scenario's cards, where the case has up to pods
// pods on one card at once (0: one).
func onTwoCards(pods int) placeRule { return onCards(cardPair, pods, "") }

// onCards places a case in the scenario on the cards pick chooses. A split
// count below pods skips it first, whatever the cards: HAMi refuses a card
// whose pods already number its split count (v2.10.0
// pkg/device/nvidia/device.go:762, dev.Count <= dev.Used). A lab without
// the cards skips it saying it has no lacks ("": the case's Needs).
func onCards(pick func(hardware) []placement, pods int, lacks string) placeRule {
	return func(s *stage, c Case) spot {
		if split := s.lab.HAMi.SplitCount; split < pods {
			return spot{skip: fmt.Sprintf("the lab's hami.splitCount is %d; the case needs %d pods on one card (set hami.splitCount "+
				"≥ %d)", split, pods, pods)}
		}
		p := pick(s.hw)
		if len(p) == 0 {
			return spot{skip: s.lacking(c, lacks)}
		}
		return spot{cards: p}
	}
}

// What onCards picks from the lab's hardware (hardware.go chooses it).
func sharingCard(hw hardware) []placement     { return one(hw.Share) }
func cardPair(hw hardware) []placement        { return one(hw.Pair) }
func lackingTypeCard(hw hardware) []placement { return one(hw.Type) }
func burstWorker(hw hardware) []placement     { return one(hw.Burst) }
func twoWorkers(hw hardware) []placement      { return hw.Nodes }
func bindCard(hw hardware) []placement        { return one(hw.Bind) }

func one(p *placement) []placement {
	if p == nil {
		return nil
	}
	return []placement{*p}
}

// lacking is the skip reason of a case whose hardware the lab lacks: what
// (else the case's Needs) said as missing. A case that needs TC-03's card
// names the card itself.
func (s *stage) lacking(c Case, what string) string {
	if what == "" {
		what = c.Needs
	}
	if strings.HasPrefix(what, "TC-03") {
		what = needsShare
	}
	return noHardware(strings.TrimPrefix(what, "a "), s.lab)
}
