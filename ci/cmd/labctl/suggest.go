package main

import (
	"errors"
	"fmt"
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

func init() { root.SetFlagErrorFunc(flagError) }

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

// withCommandHint adds to cobra's "unknown command" error, when cobra found
// no close command to suggest, where the commands are listed.
func withCommandHint(err error) error {
	if err != nil && strings.HasPrefix(err.Error(), "unknown command ") && !strings.Contains(err.Error(), "Did you mean") {
		return fmt.Errorf("%w; `%s --help` lists the commands", err, root.CommandPath())
	}
	return err
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
