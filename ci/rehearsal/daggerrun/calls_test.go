package daggerrun

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The run's commands are the README's, word for word: a README that
// changes its commands fails here until the run follows.
func TestCallsAreTheREADMEsCommands(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// A command is a line of a code block (a trailing comment aside) or an
	// inline code span.
	lines := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		for i, span := range strings.Split(l, "`") {
			if i%2 == 1 {
				lines[strings.TrimSpace(span)] = true
			}
		}
		if i := strings.Index(l, "#"); i > 0 {
			l = l[:i]
		}
		lines[strings.TrimSpace(l)] = true
	}
	for _, c := range Calls {
		if !lines[c.README()] {
			t.Errorf("call %s runs %q, which is not a command of README.md (a line of a code block or an inline code span)", c.Name, c.README())
		}
	}
}

// Every reports directory a call writes is kept before a later call of the
// README writes it again, and nothing is kept twice under one name.
func TestCallsKeepEachReportsDirectoryBeforeItIsWrittenAgain(t *testing.T) {
	written := map[string]bool{}
	kept := map[string]bool{}
	for _, c := range Calls {
		for _, a := range c.Args {
			if p, ok := strings.CutPrefix(a, "--path="); ok {
				if written[p] {
					t.Errorf("%s writes %s again before it was kept", c.Name, p)
				}
				written[p] = true
			}
		}
		if c.Keep != "" {
			if !written[c.Keep] {
				t.Errorf("%s keeps %s, which no call wrote", c.Name, c.Keep)
			}
			if kept[c.KeepAs] {
				t.Errorf("%s keeps %s as %s a second time", c.Name, c.Keep, c.KeepAs)
			}
			written[c.Keep], kept[c.KeepAs] = false, true
		}
	}
	for p, w := range written {
		if w {
			t.Errorf("%s is written and never kept", p)
		}
	}
}

func TestArgvPutsTheModuleOptionsBeforeTheFunction(t *testing.T) {
	c := Call{Args: []string{"call", "lab-test", "export", "--path=reports"}}
	for _, tc := range []struct {
		name string
		o    ModuleOptions
		want []string
	}{
		{"none", ModuleOptions{}, []string{"call", "lab-test", "export", "--path=reports"}},
		{"all", ModuleOptions{GoProxy: "http://10.0.0.1:5001", GoSumDB: "off", Charts: "/c", Versions: []string{"kindNodeImage=kindest/node:v1@sha256:ab"}},
			[]string{"call", "--goproxy=http://10.0.0.1:5001", "--gosumdb=off", "--charts=/c", "--versions=kindNodeImage=kindest/node:v1@sha256:ab", "lab-test", "export", "--path=reports"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Argv(tc.o); !slices.Equal(got, tc.want) {
				t.Errorf("Argv = %q, want %q", got, tc.want)
			}
			if got := c.Args; !slices.Equal(got, []string{"call", "lab-test", "export", "--path=reports"}) {
				t.Errorf("Argv changed the call's own words: %q", got)
			}
		})
	}
	if got := (Call{Args: []string{"core", "version"}}).Argv(ModuleOptions{GoProxy: "x"}); !slices.Equal(got, []string{"core", "version"}) {
		t.Errorf("a command that is not a call got module options: %q", got)
	}
}

func TestSelect(t *testing.T) {
	got, err := Select(nil)
	if err != nil || len(got) != len(Calls) {
		t.Fatalf("Select(nil) = %d calls, %v; want the README's %d", len(got), err, len(Calls))
	}
	got, err = Select([]string{"functions", "lab-test-cold"})
	if err != nil || len(got) != 2 || got[0].Name != "functions" || got[1].Name != "lab-test-cold" {
		t.Fatalf("Select(functions, lab-test-cold) = %+v, %v", got, err)
	}
	if _, err := Select([]string{"lab-test"}); err == nil || !strings.Contains(err.Error(), "lab-test-cold") {
		t.Errorf("Select of an unknown name = %v, want an error listing the names", err)
	}
}
