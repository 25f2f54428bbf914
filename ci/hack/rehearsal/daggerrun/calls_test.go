package daggerrun

import (
	"encoding/json"
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
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "README.md"))
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

func TestDotEnvGivesTheModuleOptions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		o       ModuleOptions
		want    []string
		wantErr string
	}{
		{"none", ModuleOptions{}, nil, ""},
		{"all", ModuleOptions{GoProxy: "http://10.0.0.1:5001", GoSumDB: "off", Charts: "/c",
			Versions: []string{"kindNodeImage=kindest/node:v1@sha256:ab", "workerNodeImage=kindest/node:v1@sha256:cd"}},
			[]string{"GPU_LAB_GOPROXY=http://10.0.0.1:5001", "GPU_LAB_GOSUMDB=off", "GPU_LAB_CHARTS=/c",
				"GPU_LAB_VERSIONS=kindNodeImage=kindest/node:v1@sha256:ab,workerNodeImage=kindest/node:v1@sha256:cd"}, ""},
		{"a comma in a list entry", ModuleOptions{Versions: []string{"a=b,c"}}, nil, "splits a list at commas"},
		{"a dollar", ModuleOptions{GoProxy: "http://$HOST:5001"}, nil, "GPU_LAB_GOPROXY"},
		{"a space", ModuleOptions{Charts: "/my charts"}, nil, "GPU_LAB_CHARTS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.o.DotEnv()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("DotEnv() = %q, %v; want an error naming %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var vars []string
			for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
				if !strings.HasPrefix(l, "#") {
					vars = append(vars, l)
				}
			}
			if !slices.Equal(vars, tc.want) {
				t.Errorf("DotEnv() variables = %q, want %q", vars, tc.want)
			}
		})
	}
}

// DotEnvPrefix is dagger.json's module name as Dagger v0.21.8 turns it
// into a .env prefix (core/envfile.go cutFlexPrefix: strcase.ToSnake of
// the name, "_" appended, compared without case): a renamed module fails
// here instead of silently losing its options.
func TestDotEnvPrefixIsTheModulesName(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "dagger.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Name string }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	// strcase.ToSnake of a lower-case name with dashes: dashes become
	// underscores.
	want := strings.ReplaceAll(m.Name, "-", "_") + "_"
	if !strings.EqualFold(DotEnvPrefix, want) {
		t.Errorf("DotEnvPrefix %q; dagger.json names the module %q, whose .env prefix is %q", DotEnvPrefix, m.Name, want)
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
