package moduletest

import (
	"bufio"
	"encoding/json"
	"go/ast"
	"os"
	"strings"
	"testing"
)

// resultTypes renders a function's result list, e.g. "labcmd.Step".
func resultTypes(fd *ast.FuncDecl) []string {
	var out []string
	if fd.Type.Results == nil {
		return nil
	}
	for _, f := range fd.Type.Results.List {
		var s string
		switch t := f.Type.(type) {
		case *ast.Ident:
			s = t.Name
		case *ast.SelectorExpr:
			s = t.X.(*ast.Ident).Name + "." + t.Sel.Name
		case *ast.StarExpr:
			s = "*"
		}
		n := len(f.Names)
		if n == 0 {
			n = 1
		}
		for range n {
			out = append(out, s)
		}
	}
	return out
}

// identsIn lists every identifier and selector name used in a function.
func identsIn(fd *ast.FuncDecl) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(fd, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			out[n.Name] = true
		case *ast.SelectorExpr:
			out[n.Sel.Name] = true
		}
		return true
	})
	return out
}

// An exec Dagger refuses to return (a signal exit, the Docker service
// exiting) must become a recorded step, not an error that loses the
// reports: session.exec returns a step and nothing else, and classifies
// Dagger's ExecError.
func TestExecFailuresAreRecordedSteps(t *testing.T) {
	m := parseModule(t)
	exec, ok := m.funcs["session.exec"]
	if !ok {
		t.Fatal("no session.exec")
	}
	if got := strings.Join(resultTypes(exec), ", "); got != "labcmd.Step" {
		t.Errorf("session.exec returns (%s), want only labcmd.Step: an engine error must be recorded, not returned", got)
	}
	broken, ok := m.funcs["brokenStep"]
	if !ok || !identsIn(broken)["ExecError"] || !identsIn(broken)["BrokenExec"] {
		t.Error("brokenStep must read dagger.ExecError (exit code and output of a killed exec) into labcmd.BrokenExec")
	}
	start := m.funcs["Lab.start"]
	if start == nil || !identsIn(start)["RecordWipe"] {
		t.Error("Lab.start must record the wipe with Progress.RecordWipe (best effort), not abort on it")
	}
}

// The function that starts the Docker service says so while it waits (a
// second run on the engine waits for the Locked data-root volume).
func TestDindStartAnnouncesTheWait(t *testing.T) {
	m := parseModule(t)
	found := false
	for key, fd := range m.funcs {
		if !calls(fd)["Start"] {
			continue
		}
		found = true
		if !calls(fd)["NoticeWhileWaiting"] {
			t.Errorf("%s starts the Docker service without labcmd.NoticeWhileWaiting", key)
		}
	}
	if !found {
		t.Fatal("no function starts the Docker service")
	}
}

// Stopping the service is bounded, and ends in a kill.
func TestDindStopIsBounded(t *testing.T) {
	m := parseModule(t)
	stop, ok := m.funcs["session.stop"]
	if !ok {
		t.Fatal("no session.stop")
	}
	ids := identsIn(stop)
	for _, want := range []string{"WithTimeout", "DindStopGrace", "Kill", "Stop"} {
		if !ids[want] {
			t.Errorf("session.stop does not use %s: want a graceful stop and a kill, each within labcmd.DindStopGrace", want)
		}
	}
}

// ignorePragma returns the +ignore list of New's source argument.
func ignorePragma(t *testing.T, m *module) []string {
	t.Helper()
	fd := m.funcs["New"]
	for _, f := range m.files {
		for _, cg := range f.Comments {
			if cg.Pos() < fd.Pos() || cg.End() > fd.End() {
				continue
			}
			for _, line := range strings.Split(cg.Text(), "\n") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(line), "+ignore="); ok {
					var list []string
					// Dagger's Go codegen decodes the pragma value as a JSON
					// array (cmd/codegen/generator/go/templates/module_funcs.go
					// at v0.21.8, "must be a valid JSON array").
					if err := json.Unmarshal([]byte(v), &list); err != nil {
						t.Fatalf("+ignore=%s: not a JSON array of strings: %v", v, err)
					}
					return list
				}
			}
		}
	}
	t.Fatal("New's source argument has no +ignore pragma")
	return nil
}

// gitignoreAsIgnore turns a .gitignore line into the Directory exclude
// pattern Dagger applies to +defaultPath (patterns relative to the root):
// an anchored or nested pattern is a path; a bare name matches at any depth.
func gitignoreAsIgnore(line string) string {
	p := strings.TrimSuffix(line, "/")
	if strings.HasPrefix(p, "/") {
		return strings.TrimPrefix(p, "/")
	}
	if strings.Contains(p, "/") {
		return p
	}
	return "**/" + p
}

// +defaultPath="/" uploads the whole checkout, gitignored build outputs
// included (Dagger v0.21.8 core/modfunc.go loads it with only the +ignore
// excludes, no gitignore), and anything under ci/ busts the labctl build
// cache. Every root .gitignore pattern must be in +ignore.
func TestSourceIgnoresGitignoredFiles(t *testing.T) {
	m := parseModule(t)
	ignore := map[string]bool{}
	for _, p := range ignorePragma(t, m) {
		ignore[p] = true
	}
	f, err := os.Open("../../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "!") {
			continue
		}
		n++
		want := gitignoreAsIgnore(line)
		if !ignore[want] {
			t.Errorf(".gitignore %q is not ignored by New's source argument: add %q to +ignore (then run hack/codegen.sh)", line, want)
		}
	}
	if n == 0 {
		t.Fatal("no patterns read from .gitignore")
	}
}

func TestGitignoreAsIgnore(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/reports/", "reports"},
		{"/ci/testenv/k8sbin/bin/", "ci/testenv/k8sbin/bin"},
		{"*.test", "**/*.test"},
		{"ci/out", "ci/out"},
	}
	for _, tt := range tests {
		if got := gitignoreAsIgnore(tt.in); got != tt.want {
			t.Errorf("gitignoreAsIgnore(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
