package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// printResultTable prints one line per case — mark, ID, title, time, then
// the reason of a case that did not pass — and a total. The title column
// is as wide as the run's longest title, so the times line up whatever
// the titles (a fixed width let long titles push their time out of line).
// short replaces long case messages already printed once (an unreachable
// tenant's error).
func printResultTable(w io.Writer, run *results.Run, short map[string]string) {
	idWidth, titleWidth := 0, 0
	for _, c := range run.Cases {
		idWidth = max(idWidth, utf8.RuneCountInString(c.ID))
		titleWidth = max(titleWidth, utf8.RuneCountInString(c.Title))
	}
	for _, c := range run.Cases {
		mark := map[results.Status]string{results.Passed: "PASS", results.Failed: "FAIL", results.Skipped: "SKIP"}[c.Status]
		// fmt's width counts runes, so "≥" or "×" in a title keeps the column.
		line := fmt.Sprintf("%-4s %-*s %-*s %6.1fs", mark, idWidth, c.ID, titleWidth, c.Title, c.Duration.Seconds())
		if m, ok := short[c.Message]; ok {
			line += "  " + m
		} else if c.Message != "" {
			line += "  " + c.Message
		}
		fmt.Fprintln(w, line)
	}
	p, fl, s := run.Counts()
	extra := ""
	if run.Interrupted {
		extra = ", INTERRUPTED"
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped in %.1fs (parallel %d%s)\n", p, fl, s, run.Duration.Seconds(), run.Parallel, extra)
	var core []string
	for _, c := range run.Cases {
		if c.Core && c.Status == results.Skipped {
			core = append(core, c.ID)
		}
	}
	if len(core) > 0 {
		fmt.Fprintf(w, "core cases skipped: %s — this lab's hardware cannot prove them (--fail-on-skip makes this fail)\n",
			strings.Join(core, ", "))
	}
}
