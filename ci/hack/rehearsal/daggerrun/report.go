package daggerrun

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/run"
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
	Suites map[string]*run.Suite
	// DotEnv is the .env the calls ran with (the module's options).
	DotEnv string
	// EngineGC is what the engine's collector reclaimed (nil: not read).
	EngineGC *EngineGC
	Failure  string
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
	if r.DotEnv != "" {
		fmt.Fprintf(&b, "\nThe module's options, as Dagger user defaults in the clone's `.env` (logs/dotenv):\n\n```\n%s```\n", r.DotEnv)
	}
	b.WriteString("\n## Calls (the README's commands)\n\n" +
		"| call | command | wall | exit | engine cache after | free disk after | log |\n|---|---|---|---|---|---|---|\n")
	for _, c := range r.Calls {
		fmt.Fprintf(&b, "| %s | `%s` | %s | %d | %s | %s | %s |\n", c.Name, c.Command, c.Wall.Round(time.Second),
			c.ExitCode, gb(c.EngineCache), gb(c.FreeDisk), filepath.Base(c.Log))
	}
	switch g := r.EngineGC; {
	case g == nil:
	case g.Sweeps == 0:
		b.WriteString("\nThe engine's garbage collector reclaimed nothing during the run.\n")
	default:
		fmt.Fprintf(&b, "\nThe engine's garbage collector reclaimed %s in %d passes (logs/engine-gc.log).\n", gb(g.Reclaimed), g.Sweeps)
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

// gb is a byte count in GB with two decimals, "-" when not measured.
func gb(n int64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
