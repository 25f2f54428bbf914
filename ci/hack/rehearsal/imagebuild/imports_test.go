package imagebuild

import (
	"os/exec"
	"strings"
	"testing"
)

// The image builder sits beside ci/images and ci/docker, below the stages
// and the command: it must never bring in ci/stages, ci/testenv (other
// than the standard-library bincache whose progress lines it shares),
// or ci/suite.
func TestImportsStayLow(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./...").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range []string{"/ci/stages", "/ci/suite", "/ci/testenv/"} {
			if strings.Contains(dep, bad) && dep != "github.com/gpu-lab/gpu-lab/ci/testenv/bincache" {
				t.Errorf("imagebuild depends on %s", dep)
			}
		}
	}
}
