package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// placeholder is what a backquoted word in a flag's usage may be: pflag
// shows it as the flag's value name (`--run REGEXP`), so a quoted command
// such as `labctl test` would turn into "--run labctl test".
var placeholder = regexp.MustCompile(`^[A-Z][A-Z0-9_=-]*$`)

// TestFlagPlaceholders checks every flag of every labctl command.
func TestFlagPlaceholders(t *testing.T) {
	var walk func(cmd *cobra.Command)
	checked := 0
	walk = func(cmd *cobra.Command) {
		check := func(f *pflag.Flag) {
			checked++
			name, _ := pflag.UnquoteUsage(f)
			if strings.Contains(f.Usage, "`") && !placeholder.MatchString(name) {
				t.Errorf("%s --%s shows the value name %q (from backquotes in its usage %q): quote only an upper-case placeholder",
					cmd.CommandPath(), f.Name, name, f.Usage)
			}
		}
		cmd.LocalFlags().VisitAll(check)
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(newRootCommand(streams{}))
	if checked < 20 {
		t.Fatalf("only %d flags found: is every command registered with root?", checked)
	}
}

// TestRunHelpPlaceholders is the case that was reported: `labctl run
// --help` showed "--parallel labctl test" and "--run labctl test".
func TestRunHelpPlaceholders(t *testing.T) {
	cmd, _, err := newRootCommand(streams{}).Find([]string{"run"})
	if err != nil || cmd.Name() != "run" {
		t.Fatalf("no run command: %v", err)
	}
	usage := cmd.LocalFlags().FlagUsages()
	for _, want := range []string{"--parallel N", "--run REGEXP"} {
		if !strings.Contains(usage, want) {
			t.Errorf("labctl run --help lacks %q:\n%s", want, usage)
		}
	}
	if strings.Contains(usage, "--run labctl") || strings.Contains(usage, "--parallel labctl") {
		t.Errorf("a command name is shown as a placeholder:\n%s", usage)
	}
}
