package daggerrun

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Call is one `dagger` command of the run: the README's command, word for
// word (Args, after `dagger`), its name in the logs and the report, and
// what of the clone the evidence keeps after it.
type Call struct {
	// Name names the call's log and its line in the report.
	Name string
	// Args are the README's words after `dagger`, exactly as written there.
	Args []string
	// Keep is a reports directory of the clone that is moved into the
	// evidence (as KeepAs) once this call has run: the next call of the
	// README writes the same path again.
	Keep, KeepAs string
	// Verdict says the call's exit status is the lab's verdict, not the
	// module's: check-reports fails when a case failed.
	Verdict bool
}

// Calls are the README's commands, in the order a user runs them: the lab
// on an engine with an empty cache (cold) and its verdict; the same two
// again (warm: nothing changed); the quick test and its verdict.
var Calls = []Call{
	{Name: "lab-test-cold", Args: []string{"call", "lab-test", "export", "--path=reports"}},
	{Name: "check-reports-cold", Args: []string{"call", "check-reports", "--reports=reports"}, Verdict: true,
		Keep: "reports", KeepAs: "reports-cold"},
	{Name: "lab-test-warm", Args: []string{"call", "lab-test", "export", "--path=reports"}},
	{Name: "check-reports-warm", Args: []string{"call", "check-reports", "--reports=reports"}, Verdict: true,
		Keep: "reports", KeepAs: "reports-warm"},
	{Name: "quick-test", Args: []string{"call", "quick-test", "export", "--path=quick-reports"}},
	{Name: "check-quick-reports", Args: []string{"call", "check-reports", "--reports=quick-reports"}, Verdict: true,
		Keep: "quick-reports", KeepAs: "quick-reports"},
}

// Probes are calls a maintainer may add to the README's (`rehearse dagger
// run --calls`): loading the module (the Go SDK builds it through the Go
// proxy tree) and a lab function that needs no Docker, to find where the
// module first fails; and `dagger check`, which both CI recipes run first
// (.github/workflows/lab.yml, .gitlab-ci.yml): the repository's tests in
// the engine (the module's +check function, .dagger/check.go).
var Probes = []Call{
	{Name: "functions", Args: []string{"functions"}},
	{Name: "lab-plan", Args: []string{"call", "lab", "plan"}},
	{Name: "check", Args: []string{"check"}},
}

// Select returns the calls of Probes and Calls with the given names, in
// the order given; nil names select Calls.
func Select(names []string) ([]Call, error) {
	if len(names) == 0 {
		return Calls, nil
	}
	all := append(slices.Clone(Probes), Calls...)
	var out []Call
	for _, n := range names {
		i := slices.IndexFunc(all, func(c Call) bool { return c.Name == n })
		if i < 0 {
			var known []string
			for _, c := range all {
				known = append(known, c.Name)
			}
			return nil, fmt.Errorf("no call named %q: choose among %s", n, strings.Join(known, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

// README is the command as the README writes it.
func (c Call) README() string { return "dagger " + strings.Join(c.Args, " ") }

// ModuleOptions are the module's own options this machine's run needs,
// each an option any runner without internet access sets the same way.
type ModuleOptions struct {
	// GoProxy and GoSumDB are --goproxy and --gosumdb: the engine has no
	// route to the public Go proxy, and the tree serves no checksum
	// database.
	GoProxy, GoSumDB string
	// Charts is --charts: the chart repositories are out of reach.
	Charts string
	// Versions are --versions overrides: a digest-pinned image the
	// registry serves under another digest (a built node image) is named
	// by the digest it is served under (NodeImageOverrides).
	Versions []string
}

// DotEnvPrefix is how Dagger names the module's options in a .env file:
// the module's name from dagger.json in snake case plus "_", matched
// without regard to case (dagger v0.21.8 core/envfile.go:177-225,
// Namespace and cutFlexPrefix).
const DotEnvPrefix = "GPU_LAB_"

// DotEnv is the .env file that gives the options as Dagger's user defaults
// of the module's constructor: Dagger finds it upwards from the working
// directory (v0.21.8 core/modulesource.go:981-1088, outerEnvFile and
// LoadUserDefaults) and applies a default to an argument the command line
// does not set (core/modfunc.go:185-215, 553-611). So every call runs the
// README's words unchanged, as a user's runner does with the same file.
// Values are written bare: one that Dagger would read otherwise (a list
// value is split at commas, core/modfunc.go:337-343; files are expanded,
// so `$` is special) is refused.
func (o ModuleOptions) DotEnv() (string, error) {
	var b strings.Builder
	b.WriteString("# The gpu-lab module's options on this runner (Dagger user defaults), written by rehearse dagger run.\n")
	var errs []error
	add := func(name, value string) {
		if value == "" {
			return
		}
		if strings.ContainsAny(value, unsafeInDotEnv) {
			errs = append(errs, fmt.Errorf("module option %s%s=%q: a .env value here must not contain any of %q",
				DotEnvPrefix, name, value, unsafeInDotEnv))
			return
		}
		fmt.Fprintf(&b, "%s%s=%s\n", DotEnvPrefix, name, value)
	}
	add("GOPROXY", o.GoProxy)
	add("GOSUMDB", o.GoSumDB)
	add("CHARTS", o.Charts)
	for _, v := range o.Versions {
		if strings.Contains(v, ",") {
			errs = append(errs, fmt.Errorf("module option %sVERSIONS entry %q: Dagger splits a list at commas", DotEnvPrefix, v))
		}
	}
	add("VERSIONS", strings.Join(o.Versions, ","))
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	return b.String(), nil
}

// unsafeInDotEnv are the characters a bare .env value cannot hold as they
// are: blanks and line ends, quotes, `$` (expansion), `#` and `\`.
const unsafeInDotEnv = " \t\n\r\"'`$#\\"
