package suite

import (
	"slices"
	"testing"
	"time"
)

func TestSplitByLock(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	s := func(ms ...int) []time.Duration {
		var out []time.Duration
		for _, m := range ms {
			out = append(out, time.Duration(m)*time.Millisecond)
		}
		return out
	}
	for _, c := range []struct {
		name  string
		evs   []lockEvent
		end   time.Time
		takes int
		held  []time.Duration
		free  time.Duration
	}{
		{name: "nothing seen", end: at(1000)},
		{name: "free before the first take is no wait", evs: []lockEvent{{at(0), ""}, {at(300), "ns/a"}, {at(900), ""}}, end: at(900),
			takes: 1, held: s(600)},
		{name: "two holds with a gap, free until the last bind", evs: []lockEvent{
			{at(0), "ns/a"}, {at(800), ""}, {at(1800), "ns/b"}, {at(2300), ""}}, end: at(2500),
			takes: 2, held: s(500, 800), free: 1200 * time.Millisecond},
		{name: "a new owner ends the hold before it, a repeat is no change", evs: []lockEvent{
			{at(0), "ns/a"}, {at(100), "ns/a"}, {at(700), "ns/b"}, {at(1000), ""}}, end: at(1000),
			takes: 2, held: s(300, 700)},
		{name: "a hold that ends after the last bind counts whole", evs: []lockEvent{
			{at(0), "ns/a"}, {at(400), ""}, {at(600), "ns/b"}, {at(1500), ""}}, end: at(1000),
			takes: 2, held: s(400, 900), free: 200 * time.Millisecond},
		{name: "free at the last bind counts up to it only", evs: []lockEvent{
			{at(0), "ns/a"}, {at(400), ""}, {at(3000), "ns/b"}}, end: at(1000),
			takes: 1, held: s(400), free: 600 * time.Millisecond},
		{name: "a hold still running is not counted", evs: []lockEvent{{at(0), "ns/a"}}, end: at(1000), takes: 1},
	} {
		got := splitByLock(c.evs, c.end)
		if got.takes != c.takes || !slices.Equal(got.held, c.held) || got.free != c.free {
			t.Errorf("%s: got takes %d held %v free %v, want %d %v %v", c.name, got.takes, got.held, got.free, c.takes, c.held, c.free)
		}
	}
}
