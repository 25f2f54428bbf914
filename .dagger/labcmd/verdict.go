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
	fmt.Fprintf(&b, "The suite did not run. Full log: `logs/%s.log`; labctl's diagnostics bundle, when it wrote one: `state/diagnostics/`.\n", stage)
	if t := strings.TrimSpace(tail); t != "" {
		fmt.Fprintf(&b, "\n```\n%s\n```\n", t)
	}
	return b.String()
}

// Tail is the last n lines of s, for summaries that must stay short.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
