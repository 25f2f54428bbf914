package daggerrun

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/rehearsal"
	"github.com/gpu-lab/gpu-lab/ci/rehearsal/run"
)

// Report is what one Dagger rehearsal did and measured.
type Report struct {
	Date        time.Time
	Commit      string
	Versions    []string
	Steps       []StepResult
	Calls       []CallResult
	Adaptations []rehearsal.Adaptation
	// Suites are the suite's results each kept reports directory holds.
	Suites  map[string]*run.Suite
	Failure string
}

// Markdown is the report as kept with the evidence.
func (r Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Dagger rehearsal %s\n\n", r.Date.Format("2006-01-02 15:04 UTC"))
	if r.Failure != "" {
		fmt.Fprintf(&b, "**Failed:** %s\n\n", r.Failure)
	} else {
		b.WriteString("**Passed:** every step and call ran.\n\n")
	}
	fmt.Fprintf(&b, "Commit %s (a fresh clone).\n\n", orNone(r.Commit))
	for _, v := range r.Versions {
		fmt.Fprintf(&b, "- %s\n", v)
	}
	b.WriteString("\n## Steps\n\n| step | wall | result |\n|---|---|---|\n")
	for _, s := range r.Steps {
		res := "ok"
		if s.Err != nil {
			res = strings.ReplaceAll(s.Err.Error(), "\n", " ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", s.Name, s.Wall.Round(time.Second), res)
	}
	b.WriteString("\n## Calls (the README's commands)\n\n| call | command | wall | exit | log |\n|---|---|---|---|---|\n")
	for _, c := range r.Calls {
		fmt.Fprintf(&b, "| %s | `%s` | %s | %d | %s |\n", c.Name, c.Command, c.Wall.Round(time.Second), c.ExitCode, filepath.Base(c.Log))
	}
	if len(r.Suites) > 0 {
		b.WriteString("\n## Suites\n\n| reports | passed | failed | skipped | wall |\n|---|---|---|---|---|\n")
		for _, name := range slices.Sorted(maps.Keys(r.Suites)) {
			s := r.Suites[name]
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %s |\n", name, s.Passed, s.Failed, s.Skipped, s.Duration.Round(100*time.Millisecond))
		}
	}
	b.WriteString("\n## Adaptations of this machine\n\n")
	for _, a := range r.Adaptations {
		fmt.Fprintf(&b, "- **%s**: %s — %s\n", a.Name, a.What, a.Reason)
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
