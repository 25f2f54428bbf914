package moduletest

import (
	"go/ast"
	"testing"

	"dagger/gpu-lab/labcmd"
)

// The module's names inside labctl's state dir must be ci/state's
// (ci/state/state.go owns the layout).
func TestStateLayoutMatchesLabctl(t *testing.T) {
	f := parseRoot(t, "ci/state/state.go")
	consts := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, id := range vs.Names {
			if i < len(vs.Values) {
				if s, ok := stringLit(vs.Values[i]); ok {
					consts[id.Name] = s
				}
			}
		}
		return true
	})
	for state, module := range map[string]string{
		"KubeconfigsDir": labcmd.StateKubeconfigs,
		"ManagementName": labcmd.StateManagement,
	} {
		if got, ok := consts[state]; !ok || got != module {
			t.Errorf("ci/state.%s = %q (found %v), the module uses %q", state, got, ok, module)
		}
	}
}
