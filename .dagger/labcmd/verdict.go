package labcmd

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseExitCode reads the exit-code file of a reports directory.
func ParseExitCode(content string) (int, error) {
	code, err := strconv.Atoi(strings.TrimSpace(content))
	if err != nil || code < 0 {
		return 0, fmt.Errorf("%s %q: want a non-negative integer written by lab-test", ExitCodeFile, strings.TrimSpace(content))
	}
	return code, nil
}

// Verdict is nil when the run passed and otherwise an error that carries the
// summary, so the failing step's log says what failed.
func Verdict(code int, summary string) error {
	if code == 0 {
		return nil
	}
	msg := fmt.Sprintf("lab-test failed (labctl exit code %d)", code)
	if s := strings.TrimSpace(summary); s != "" {
		msg += "\n\n" + s
	}
	return fmt.Errorf("%s", msg)
}

// StageFailure is the summary.md written when a stage fails and the suite
// never ran: it names the stage and where its log and diagnostics are.
func StageFailure(stage string, code int, tail string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## gpu-lab: stage `%s` failed (exit code %d)\n\n", stage, code)
	fmt.Fprintf(&b, "The suite did not run. Full log: `logs/%s.log`; labctl's diagnostics bundle, "+
		"when it wrote one: `state/diagnostics/`.\n", stage)
	if t := strings.TrimSpace(tail); t != "" {
		fmt.Fprintf(&b, "\n```\n%s\n```\n", t)
	}
	return b.String()
}

// Tail is the last n lines of s, for summaries that must stay short. It
// leaves out labctl's debug lines (Up passes --verbose): the full log keeps
// them, and a summary must show the stage's own words and its error.
func Tail(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if !debugLine(l) {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// BrokenSummary is the summary.md written when a step did not finish: it
// says what happened, that nothing ran after it and where its log is.
func BrokenSummary(s Step, tail string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## gpu-lab: step `%s` did not finish (exit code %d)\n\n", s.Name, s.Code)
	fmt.Fprintf(&b, "It was %s.\n\n", s.Broken)
	if s.Setup {
		b.WriteString("The module prepares the lab's images, charts and Docker-in-Docker service before any stage runs; " +
			"the engine's error above says what it could not fetch or start. The module recorded that instead of failing the call, " +
			"so these reports still exist.\n\n")
	} else {
		b.WriteString("Dagger returns an exec's exit code only for 0–127 and 192–255; a signal exit (128–191, e.g. 137 for SIGKILL) " +
			"or the Docker-in-Docker service exiting fails the exec in the engine. The module recorded that instead of failing the call, " +
			"so these reports still exist.\n\n")
	}
	fmt.Fprintf(&b, "The run stopped there: no later stage and no suite ran, "+
		"and what the step wrote to the state and report directories is lost. "+
		"Its output, as far as the engine kept it: `logs/%s.log`.\n", s.Name)
	if t := strings.TrimSpace(tail); t != "" {
		fmt.Fprintf(&b, "\n```\n%s\n```\n", t)
	}
	return b.String()
}

func earlierFailure(stage string, code int) string {
	return fmt.Sprintf("\nBefore that, stage `%s` failed (exit code %d): `logs/%s.log`.\n", stage, code, stage)
}

func wipeNote(code int) string {
	return fmt.Sprintf("\nNote: clearing what earlier runs left in the cached Docker data root failed (exit code %d, `logs/wipe.log`). "+
		"A stage that collides with a leftover container, network or volume may have failed because of it.\n", code)
}

// debugLine is a line labctl's debug logger wrote: log/slog's text handler
// starts every record with its time and then its level
// (ci/cmd/labctl/labenv.go, logger).
func debugLine(l string) bool {
	rest, ok := strings.CutPrefix(l, "time=")
	if !ok {
		return false
	}
	_, after, ok := strings.Cut(rest, " ")
	return ok && strings.HasPrefix(after, "level=DEBUG ")
}
