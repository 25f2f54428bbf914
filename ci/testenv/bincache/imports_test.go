package bincache

import (
	"os/exec"
	"strings"
	"testing"
)

// The cache is plain standard library: a test binary that needs only a
// built tool, such as ci/stages/kubeadmcheck's kubeadm, links neither
// client-go nor ci/testenv's components with it (hundreds of packages, and
// seconds of link for every such test binary). A project package that
// brought them in would fail here by the paths it pulls.
func TestImportsOnlyTheStandardLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep != "github.com/gpu-lab/gpu-lab/ci/testenv/bincache" {
			t.Errorf("bincache depends on %s, outside the standard library", dep)
		}
	}
}
