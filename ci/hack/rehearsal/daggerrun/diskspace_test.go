package daggerrun

import "testing"

func TestDiskShortfall(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		name       string
		free, held int64
		want       int64
	}{
		{"the 2026-12-06 machine: 27 GiB free, a cold engine", 27 * gib, 0, engineBudget + diskMargin - 27*gib},
		{"a cold engine with room", engineBudget + diskMargin, 0, 0},
		{"a warm engine needs only what it lacks", 10 * gib, engineBudget - 6*gib, 0},
		{"a warm engine on a full disk", 1 * gib, engineBudget - 6*gib, 9 * gib},
		{"an engine past its budget still keeps the margin", 2 * gib, engineBudget + 5*gib, diskMargin - 2*gib},
	} {
		if got := diskShortfall(c.free, c.held); got != c.want {
			t.Errorf("%s: shortfall %d, want %d", c.name, got, c.want)
		}
	}
}
