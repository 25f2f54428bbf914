package suite

// The seed lab's workloads on its 81920 MB A100 (HAMI-FACTS.md §3):
// three 20000 MB + 30% pods share the card, a 90000 MB pod does not fit it,
// and a fourth 30% slice still fits by memory but not by cores. On other
// cards the same checks are scaled from the card's memory so each means the
// same thing; on 81920 MB the numbers come out exactly as the seed's.
const (
	sliceCores = 30 // TC-03/07/13: 3 × 30 ≤ 100 < 4 × 30, whatever the card
	smallCores = 10 // TC-09/11/12/16/17: small slices (HAMI-FACTS.md §3g)
	burstPods  = 10 // TC-14
	burstCores = 5
	// seedSmallMB is the small slice on every catalog card (16384 MB and up).
	seedSmallMB = 1000
	// sizeStep rounds the scaled sizes to whole GB-ish numbers people read
	// easily (20000, 4000), as the seed's were chosen.
	sizeStep = 1000
)

// shareSizes are the sharing scenario's sizes on one card.
type shareSizes struct {
	// SliceMB: three slices fit the card and a fourth still fits by memory
	// (4 × SliceMB ≤ card), so the fourth is refused for cores alone.
	SliceMB int
	// OversizedMB is more than the whole card (TC-06).
	OversizedMB int
	// SmallMB is a slice small enough to be blocked only by a whole-card
	// holder (TC-16).
	SmallMB int
}

// shareSizesFor scales the seed's sizes to a card of cardMB; ok is false
// when the card is too small for three slices and a fourth (under 4 MB).
func shareSizesFor(cardMB int) (s shareSizes, ok bool) {
	q := cardMB / 4
	if q >= sizeStep {
		q -= q % sizeStep // 81920 / 4 = 20480 → 20000, the seed's slice
	}
	if q < 1 {
		return shareSizes{}, false
	}
	// 10% above the card, to the nearest step: 81920 → 90112 → 90000.
	over := (cardMB*11/10 + sizeStep/2) / sizeStep * sizeStep
	if over <= cardMB {
		over = cardMB + max(1, cardMB/10)
	}
	return shareSizes{SliceMB: q, OversizedMB: over, SmallMB: smallMBFor(cardMB)}, true
}

// smallMBFor is the small slice on a card: the seed's 1000 MB, or a tenth
// of a card too small for ten of those (so TC-14's ten pods still fit one).
func smallMBFor(cardMB int) int {
	return max(1, min(seedSmallMB, cardMB/burstPods))
}

// smallMBOf is the small slice that fits every one of the cards.
func smallMBOf(cards []int) int {
	s := seedSmallMB
	for _, mb := range cards {
		s = min(s, smallMBFor(mb))
	}
	return s
}
