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
	summaryNoteMax    = 160
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
	verdict := "✅"
	if !run.OK() {
		verdict = "❌"
	}
	fmt.Fprintf(&b, "## %s %s: %d passed, %d failed, %d skipped\n\n", verdict, suitesName(run), passed, failed, skipped)
	fmt.Fprintf(&b, "**Backend:** %s · **Wall time:** %s · **Parallel:** %d", mdText(orDash(run.Backend)), human(time.Duration(run.Duration)), run.Parallel)
	if !run.Started.IsZero() {
		fmt.Fprintf(&b, " · **Started:** %s", run.Started.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	b.WriteString("\n\n")
	if run.Interrupted {
		b.WriteString("> [!WARNING]\n> The run was interrupted before every case finished; the reports show what had run.\n\n")
	}
	if len(run.Cases) == 0 {
		b.WriteString("No case ran.\n")
		return b.String()
	}
	var core []string
	for i := range run.Cases {
		if c := &run.Cases[i]; c.Core && c.Status == results.Skipped {
			core = append(core, c.ID)
		}
	}
	if len(core) > 0 {
		fmt.Fprintf(&b, "> [!WARNING]\n> Core cases skipped: %s. This lab's hardware cannot prove them (each one's note says what it needs); `labctl test --fail-on-skip` makes this a failure.\n\n", strings.Join(core, ", "))
	}
	var table strings.Builder
	table.WriteString("| | Case | Title | Suite | Time | Note |\n|---|---|---|---|--:|---|\n")
	for i := range run.Cases {
		c := &run.Cases[i]
		note := ""
		if c.Status != results.Passed {
			note = mdCell(truncateLine(c.Message, summaryNoteMax))
		}
		fmt.Fprintf(&table, "| %s | %s | %s | %s | %s | %s |\n", statusEmoji(c.Status), mdCell(c.ID), mdCell(c.Title),
			mdCell(className(c)), human(time.Duration(c.Duration)), note)
	}
	if failed == 0 {
		b.WriteString(table.String())
		return b.String()
	}
	// A failed run opens on its failures; the table of every case follows.
	b.WriteString("### Failures\n")
	budget := summaryBudget - table.Len()
	for i := range run.Cases {
		c := &run.Cases[i]
		if c.Status != results.Failed {
			continue
		}
		var f strings.Builder
		fmt.Fprintf(&f, "\n#### ❌ %s %s\n\n", mdText(c.ID), mdText(c.Title))
		fmt.Fprintf(&f, "`%s` · %s\n\n", strings.ReplaceAll(className(c), "`", "'"), human(time.Duration(c.Duration)))
		f.WriteString(fence(orDash(strings.TrimSpace(c.Message))))
		if out := systemOut(c); out != "" {
			f.WriteString("\n<details><summary>Steps, details and diagnostics</summary>\n\n")
			f.WriteString(fence(truncate(out, summaryDetailsMax, "results.json")))
			f.WriteString("\n</details>\n")
		}
		if b.Len()+f.Len() > budget {
			b.WriteString("\n_More failures are listed in junit.xml, results.json and report.html; this summary stops here to stay under GitHub's size limit._\n")
			break
		}
		b.WriteString(f.String())
	}
	b.WriteString("\n### Cases\n\n")
	b.WriteString(table.String())
	return b.String()
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

func truncateLine(s string, n int) string {
	s = oneLine(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
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
