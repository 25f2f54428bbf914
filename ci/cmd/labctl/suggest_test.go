package main

import (
	"strings"
	"testing"
)

// TestMistypedCommandsAndFlags: a mistyped command or flag is named with
// the closest one, and without a close one with where the list is.
func TestMistypedCommandsAndFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, "unknown command \"bogus\" for \"labctl\"; `labctl --help` lists the commands"},
		{[]string{"valdate"}, "unknown command \"valdate\" for \"labctl\"\n\nDid you mean this?\n\tvalidate\n"},
		{[]string{"run", "--paralel", "3"}, "unknown flag: --paralel: did you mean --parallel? (`labctl run --help` lists its flags)"},
		{[]string{"validate", "--fil", "x"}, "unknown flag: --fil: did you mean --file? (`labctl validate --help` lists its flags)"},
		{[]string{"validate", "--zzzzzz"}, "unknown flag: --zzzzzz (`labctl validate --help` lists its flags)"},
		{[]string{"validate", "-x"}, "unknown shorthand flag: 'x' in -x (`labctl validate --help` lists its flags)"},
		{[]string{"images", "bogus"}, "unknown command \"bogus\" for \"labctl images\"; `labctl images --help` lists the commands"},
		{[]string{"testenv", "bogus"}, "unknown command \"bogus\" for \"labctl testenv\"; `labctl testenv --help` lists the commands"},
		{[]string{"testenv", "upp"}, "unknown command \"upp\" for \"labctl testenv\"\n\nDid you mean this?\n\tup\n"},
	} {
		_, err := runRoot(t, tc.args...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("labctl %s: %v\nwant: %s", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"paralel", "parallel", 1}, {"kitten", "sitting", 3}, {"", "ab", 2}, {"ab", "", 2}, {"fil", "file", 1}} {
		if got := levenshtein(tc.a, tc.b); got != tc.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestGroupWithoutArgumentsShowsHelp: `labctl testenv` alone still prints
// its help and succeeds.
func TestGroupWithoutArgumentsShowsHelp(t *testing.T) {
	out, err := runRoot(t, "testenv")
	if err != nil || !strings.Contains(out, "labctl testenv [command]") {
		t.Errorf("labctl testenv: %v\n%s", err, out)
	}
}
