package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cobra v1.10.2 suggests commands for a mistyped one (SuggestionsFor,
// Levenshtein distance <= SuggestionsMinimumDistance, default 2, or a
// prefix; command.go:781-796, 862-881) but has nothing for flags: pflag
// v1.0.9 returns a *pflag.NotExistError (errors.go:21) and cobra hands it
// to the FlagErrorFunc (command.go:921). These add the missing half with
// the same rule, and a pointer to --help when nothing is close.

// suggestionDistance is cobra's default SuggestionsMinimumDistance.
const suggestionDistance = 2

// flagError names the command, the closest flag it has and where the flags
// are listed.
func flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return err
	}
	help := fmt.Sprintf("`%s --help` lists its flags", cmd.CommandPath())
	if ne.GetSpecifiedShortnames() != "" {
		return fmt.Errorf("%w (%s)", err, help)
	}
	if s := closestFlag(cmd.Flags(), ne.GetSpecifiedName()); s != "" {
		return fmt.Errorf("%w: did you mean --%s? (%s)", err, s, help)
	}
	return fmt.Errorf("%w (%s)", err, help)
}

// closestFlag is the flag of fs nearest to name by cobra's rule, or "".
func closestFlag(fs *pflag.FlagSet, name string) string {
	best, bestD := "", suggestionDistance+1
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := levenshtein(strings.ToLower(name), strings.ToLower(f.Name))
		if strings.HasPrefix(f.Name, name) && len(name) > 1 {
			d = min(d, suggestionDistance)
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// withCommandHint adds to an "unknown command" error, when cobra found no
// close command to suggest, where the commands are listed: `<the command the
// error names> --help`.
func withCommandHint(root *cobra.Command, err error) error {
	if err == nil || !strings.HasPrefix(err.Error(), "unknown command ") || strings.Contains(err.Error(), "Did you mean") {
		return err
	}
	path := root.CommandPath()
	if m := unknownCommandFor.FindStringSubmatch(err.Error()); m != nil {
		path = m[1]
	}
	return fmt.Errorf("%w; `%s --help` lists the commands", err, path)
}

// unknownCommandFor finds the command in cobra's `unknown command "x" for
// "labctl images"` (args.go:36, 44).
var unknownCommandFor = regexp.MustCompile(`^unknown command "[^"]*" for "([^"]+)"`)

// rejectUnknownSubcommands makes every command that only groups others
// (testenv: up, build) refuse an unknown subcommand as the root does. cobra
// checks subcommand names only at the root (args.go:34-37, legacyArgs); a
// group without a Run of its own answers `labctl testenv bogus` with its
// help and exit 0 (command.go:955-956: !c.Runnable() returns flag.ErrHelp before
// the arguments are checked), so a typo in a CI script passed.
func rejectUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		rejectUnknownSubcommands(sub)
	}
	if !c.HasParent() || c.Runnable() || !c.HasSubCommands() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = suggestionDistance
		}
		var did string
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			did = "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
		}
		return fmt.Errorf("unknown command %q for %q%s", args[0], cmd.CommandPath(), did)
	}
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
