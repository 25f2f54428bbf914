package gpus

import (
	"os/exec"
	"strings"
	"testing"
)

// The wire formats stay plain data and parsing: a package that needs only
// them, such as the suite's assertions (ci/suite/assert), links neither
// client-go nor the API types with them (about 550 packages, seconds of
// link for every test binary that imports this one). Code that talks to
// a tenant belongs in ci/gpus/deviceplugin.
func TestWireFormatsLinkNoKubernetesClient(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "k8s.io/client-go/") || strings.HasPrefix(dep, "k8s.io/api/") {
			t.Errorf("ci/gpus depends on %s", dep)
		}
	}
}
