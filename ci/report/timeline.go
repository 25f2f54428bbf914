package report

import (
	"math"
	"strconv"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// Timeline geometry in SVG user units; the SVG scales to the page width.
const (
	tlWidth  = 1000.0
	tlLabel  = 64.0 // left column with case IDs
	tlRight  = 56.0 // room for the duration after the last bar
	tlRow    = 22.0
	tlTop    = 24.0 // room for the axis labels
	tlBar    = 14.0
	tlMinBar = 2.0
)

type timeline struct {
	Width, Height float64
	Rows          []timelineRow
	Ticks         []timelineTick
	AxisY         float64
}

type timelineRow struct {
	ID, Title, Status, Label string
	Y, TextY, X, W, LabelX   float64
}

type timelineTick struct {
	X     float64
	Label string
}

// newTimeline draws each case as a bar from its start over its duration,
// relative to the run's start, so concurrency is visible at a glance.
func newTimeline(run *results.Run) timeline {
	wall := wallTime(run)
	span := tlWidth - tlLabel - tlRight
	t := timeline{Width: tlWidth, Height: tlTop + tlRow*float64(len(run.Cases)) + 8, AxisY: tlTop - 6}
	scale := func(d time.Duration) float64 {
		if wall <= 0 {
			return 0
		}
		return float64(d) / float64(wall) * span
	}
	for i := range run.Cases {
		c := &run.Cases[i]
		var start time.Duration
		if !c.Started.IsZero() && !run.Started.IsZero() {
			start = c.Started.Sub(run.Started)
		}
		x := tlLabel + math.Max(0, scale(start))
		w := math.Max(tlMinBar, scale(time.Duration(c.Duration)))
		if x+w > tlLabel+span {
			w = math.Max(tlMinBar, tlLabel+span-x)
		}
		y := tlTop + tlRow*float64(i)
		t.Rows = append(t.Rows, timelineRow{
			ID: c.ID, Title: caseName(c) + " — " + string(c.Status) + ", " + human(time.Duration(c.Duration)),
			Status: string(c.Status), Label: human(time.Duration(c.Duration)),
			Y: y + (tlRow-tlBar)/2, TextY: y + tlRow/2 + 4, X: x, W: w, LabelX: x + w + 4,
		})
	}
	step := tickStep(wall)
	for d := time.Duration(0); step > 0 && d <= wall; d += step {
		t.Ticks = append(t.Ticks, timelineTick{X: tlLabel + scale(d), Label: tickLabel(d)})
	}
	return t
}

// tickStep picks a 1-2-5 step giving at most about ten ticks.
func tickStep(wall time.Duration) time.Duration {
	if wall <= 0 {
		return 0
	}
	for _, base := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond, time.Second,
		10 * time.Second, 100 * time.Second, 1000 * time.Second, 10000 * time.Second} {
		for _, m := range []time.Duration{1, 2, 5} {
			if wall/(base*m) <= 10 {
				return base * m
			}
		}
	}
	return wall
}

func tickLabel(d time.Duration) string {
	if d < time.Minute {
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
	}
	return human(d)
}
