package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

// GitHub refuses a step summary above 1 MiB; stay far below it so the
// summary can share the step with other output.
const (
	summaryBudget     = 256 << 10
	summaryDetailsMax = 8 << 10
	// The case table gives every reason in full up to summaryTableBudget;
	// beyond it, reasons longer than summaryNoteMax are replaced (never
	// cut) by where to read them.
	summaryTableBudget = 128 << 10
	summaryNoteMax     = 200
)

func writeSummary(path string, run *results.Run) error {
	return writeFile(path, []byte(summaryMarkdown(run)))
}

func statusEmoji(s results.Status) string {
	switch s {
	case results.Passed:
		return "✅"
	case results.Failed:
		return "❌"
	case results.Skipped:
		return "⏭️"
	}
	return "❔"
}

// summaryMarkdown renders GitHub-flavoured Markdown: a header with the
// verdict, a table with one row per case, then every failure with its
// reason and (folded) steps and details.
func summaryMarkdown(run *results.Run) string {
	passed, failed, skipped := run.Counts()
	var b strings.Builder
	writeSummaryHeader(&b, run, passed, failed, skipped)
	if len(run.Cases) == 0 {
		b.WriteString("No case ran.\n")
		return b.String()
	}
	writeCoreSkipped(&b, run)
	table := caseTable(run, false)
	if len(table) > summaryTableBudget {
		table = caseTable(run, true)
	}
	if failed == 0 {
		b.WriteString(table)
		return b.String()
	}
	// A failed run opens on its failures; the table of every case follows.
	b.WriteString("### Failures\n")
	budget := summaryBudget - len(table)
	for i := range run.Cases {
		c := &run.Cases[i]
		if c.Status != results.Failed {
			continue
		}
		f := failureMarkdown(c)
		if b.Len()+len(f) > budget {
			b.WriteString("\n_More failures are listed in junit.xml, results.json and report.html; " +
				"this summary stops here to stay under GitHub's size limit._\n")
			break
		}
		b.WriteString(f)
	}
	b.WriteString("\n### Cases\n\n")
	b.WriteString(table)
	return b.String()
}

// writeSummaryHeader writes the summary's title with the verdict and the
// counts, the run's backend and times, and a warning if it was
// interrupted.
func writeSummaryHeader(b *strings.Builder, run *results.Run, passed, failed, skipped int) {
	verdict := "✅"
	if !run.OK() {
		verdict = "❌"
	}
	fmt.Fprintf(b, "## %s %s: %d passed, %d failed, %d skipped\n\n", verdict, mdInline(suitesName(run)), passed, failed, skipped)
	fmt.Fprintf(b, "**Backend:** %s · **Wall time:** %s · **Parallel:** %d",
		mdInline(orDash(run.Backend)), human(time.Duration(run.Duration)), run.Parallel)
	if !run.Started.IsZero() {
		fmt.Fprintf(b, " · **Started:** %s", run.Started.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	b.WriteString("\n\n")
	if run.Interrupted {
		b.WriteString("> [!WARNING]\n> The run was interrupted before every case finished; the reports show what had run.\n\n")
	}
}

// writeCoreSkipped warns of the core cases the run skipped, if any.
func writeCoreSkipped(b *strings.Builder, run *results.Run) {
	var core []string
	for i := range run.Cases {
		if c := &run.Cases[i]; c.Core && c.Status == results.Skipped {
			core = append(core, c.ID)
		}
	}
	if len(core) > 0 {
		fmt.Fprintf(b, "> [!WARNING]\n> Core cases skipped: %s. "+
			"This lab's hardware cannot prove them (each one's note says what it needs); "+
			"`labctl test --fail-on-skip` makes this a failure.\n\n", strings.Join(core, ", "))
	}
}

// failureMarkdown is one failed case's section: its title, class and time,
// its reason, and its steps, details and diagnostics folded.
func failureMarkdown(c *results.Case) string {
	var f strings.Builder
	fmt.Fprintf(&f, "\n#### ❌ %s %s\n\n", mdInline(c.ID), mdInline(c.Title))
	fmt.Fprintf(&f, "`%s` · %s\n\n", strings.ReplaceAll(className(c), "`", "'"), human(time.Duration(c.Duration)))
	f.WriteString(fence(orDash(strings.TrimSpace(c.Message))))
	if out := systemOut(c); out != "" {
		f.WriteString("\n<details><summary>Steps, details and diagnostics</summary>\n\n")
		f.WriteString(fence(truncate(out, summaryDetailsMax, "results.json")))
		f.WriteString("\n</details>\n")
	}
	return f.String()
}

// caseTable is one row per case. A case that did not pass gets its reason
// in full; with point set, a reason longer than summaryNoteMax is replaced
// by where it is (a reason cut mid-word reads as a different reason).
func caseTable(run *results.Run, point bool) string {
	var table strings.Builder
	table.WriteString("| | Case | Title | Suite | Time | Note |\n|---|---|---|---|--:|---|\n")
	for i := range run.Cases {
		c := &run.Cases[i]
		note := ""
		if c.Status != results.Passed {
			note = oneLine(c.Message)
			if point && len(note) > summaryNoteMax {
				note = fmt.Sprintf("_%s reason of %d characters: in report.html and results.json_", c.Status, len(note))
				if c.Status == results.Failed {
					note = fmt.Sprintf("_failure reason of %d characters: under Failures above, in report.html and results.json_", len(oneLine(c.Message)))
				}
			} else {
				note = mdCell(note)
			}
		}
		fmt.Fprintf(&table, "| %s | %s | %s | %s | %s | %s |\n", statusEmoji(c.Status), mdCell(c.ID), mdCell(c.Title),
			mdCell(className(c)), human(time.Duration(c.Duration)), note)
	}
	return table.String()
}

// fence puts text in a code block whose fence is longer than any run of
// backticks inside it, so logs cannot break out of the block.
func fence(text string) string {
	n := 3
	for run, i := 0, 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			if run >= n {
				n = run + 1
			}
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + "text\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n"
}

// mdCell makes s safe inside a Markdown table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(mdText(oneLine(s)), "|", `\|`)
}

// mdText keeps user text from turning into HTML in GitHub's renderer.
func mdText(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
}

// mdInline makes s plain text on one line of Markdown, e.g. a heading: a
// lab name or title from a results.json is text, never emphasis, a link,
// an image, code, HTML, an entity, a table cell, math or a second line.
// Every ASCII punctuation character may be backslash-escaped (CommonMark
// 0.31.2 §2.4 "Backslash escapes"); these are the ones that have a meaning
// inside a line in GitHub's Markdown ($ starts math there). Parentheses
// only follow an escaped ] into a link, so they stay readable.
func mdInline(s string) string {
	var b strings.Builder
	for _, r := range oneLine(s) {
		if strings.ContainsRune("\\`*_{}[]<>#!|~&$", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// human formats durations for people: "0.4 s", "12.3 s", "5m02s".
func human(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
