// Package timeline reads the steps of `labctl up --verbose` from its log —
// each stage's steps, named as its dry-run names them, with when each
// started and ended (ci/stages runSteps) — and finds each stage's critical
// path: the chain of steps, each waiting for the one before, that ended
// last (issue 42: what waited for what).
package timeline

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Step is one step of a stage as the log shows it.
type Step struct {
	Stage, Name string
	Start, End  time.Time
	Failed      bool
}

// Took is how long the step ran.
func (s Step) Took() time.Duration { return s.End.Sub(s.Start) }

// The messages ci/stages' runSteps logs (stepLog).
const (
	msgStarted = "step started"
	msgDone    = "step done"
	msgFailed  = "step failed"
)

// Parse reads a labctl up --verbose log (slog's text format) and returns
// every step that started and ended, in the order they started. Lines that
// are not step lines are skipped; a step that started and never ended (an
// interrupted up) is left out.
func Parse(r io.Reader) ([]Step, error) {
	type key struct{ stage, name string }
	open := map[key][]time.Time{}
	var out []Step
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		f, err := fields(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		msg := f["msg"]
		if msg != msgStarted && msg != msgDone && msg != msgFailed {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, f["time"])
		if err != nil {
			return nil, fmt.Errorf("line %d: time %q: %w", n, f["time"], err)
		}
		k := key{f["stage"], f["step"]}
		if msg == msgStarted {
			open[k] = append(open[k], at)
			continue
		}
		starts := open[k]
		if len(starts) == 0 {
			return nil, fmt.Errorf("line %d: step %q of stage %s ended but never started", n, k.name, k.stage)
		}
		out = append(out, Step{Stage: k.stage, Name: k.name, Start: starts[0], End: at, Failed: msg == msgFailed})
		open[k] = starts[1:]
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b Step) int { return a.Start.Compare(b.Start) })
	return out, nil
}

// fields splits one line of slog's text format into its keys and values
// (a value is bare up to the next space, or a Go-quoted string).
func fields(line string) (map[string]string, error) {
	out := map[string]string{}
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimLeft(line, " ") {
		k, rest, ok := strings.Cut(line, "=")
		if !ok || strings.Contains(k, " ") {
			return out, nil // not slog's format past here (a line some other program wrote)
		}
		var v string
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, fmt.Errorf("value of %s: %w", k, err)
			}
			if v, err = strconv.Unquote(q); err != nil {
				return nil, fmt.Errorf("value of %s: %w", k, err)
			}
			rest = rest[len(q):]
		} else {
			v, rest, _ = strings.Cut(rest, " ")
			rest = " " + rest
		}
		out[k] = v
		line = rest
	}
	return out, nil
}

// slack is how far apart a step's start may be from the end of the step it
// waited for: the next step of a list starts as soon as the one before
// returns, a few milliseconds later at most.
const slack = 50 * time.Millisecond

// CriticalPath is the stage's chain of steps that ended last: its last
// step to end, the step that ended last before that one started (what it
// waited for), and so on back to the first — in the order they ran.
func CriticalPath(steps []Step, stage string) []Step {
	var mine []Step
	for _, s := range steps {
		if s.Stage == stage {
			mine = append(mine, s)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	last := slices.MaxFunc(mine, func(a, b Step) int { return a.End.Compare(b.End) })
	path := []Step{last}
	for cur := last; ; {
		var prev *Step
		for i := range mine {
			s := &mine[i]
			// Only a step that started before this one can be what it
			// waited for: the walk goes back in time and ends (two short
			// steps within the slack of each other would otherwise each
			// be the other's predecessor, for ever).
			if !s.Start.Before(cur.Start) || s.End.After(cur.Start.Add(slack)) {
				continue
			}
			if prev == nil || s.End.After(prev.End) {
				prev = s
			}
		}
		if prev == nil {
			break
		}
		path = append(path, *prev)
		cur = *prev
	}
	slices.Reverse(path)
	return path
}

// Markdown is the timeline as a report section: each stage's critical path
// (in the order of stages), then every step with when it started after the
// first one and how long it took.
func Markdown(steps []Step, stages []string) string {
	var b strings.Builder
	if len(steps) == 0 {
		b.WriteString("No step recorded (the log of labctl up --verbose has no step lines).\n")
		return b.String()
	}
	t0 := steps[0].Start
	b.WriteString("Critical path of each stage: the steps that ended last, each waiting for the one before " +
		"(a wait shows as the gap before a step).\n\n")
	for _, st := range stages {
		path := CriticalPath(steps, st)
		if len(path) == 0 {
			continue
		}
		var parts []string
		for i, s := range path {
			p := fmt.Sprintf("%s (%s)", cut(s.Name, 60), secs(s.Took()))
			if i > 0 {
				if gap := s.Start.Sub(path[i-1].End); gap > slack {
					p = fmt.Sprintf("[%s gap] %s", secs(gap), p)
				}
			}
			parts = append(parts, p)
		}
		fmt.Fprintf(&b, "- **%s** %s: %s\n", st, secs(path[len(path)-1].End.Sub(path[0].Start)), strings.Join(parts, " → "))
	}
	b.WriteString("\n| stage | step | started | took |\n|---|---|---|---|\n")
	for _, s := range steps {
		name := cut(s.Name, 110)
		if s.Failed {
			name += " (failed)"
		}
		fmt.Fprintf(&b, "| %s | %s | +%s | %s |\n", s.Stage, strings.ReplaceAll(name, "|", `\|`), secs(s.Start.Sub(t0)), secs(s.Took()))
	}
	return b.String()
}

// cut is a step's name cut to max characters.
func cut(name string, max int) string {
	r := []rune(name)
	if len(r) <= max {
		return name
	}
	return string(r[:max-1]) + "…"
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
