package render

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// testLabs are the labs every render test runs on: the seed lab and a
// three-tenant lab with overrides.
func testLabs(t *testing.T) map[string]*lab.Lab {
	t.Helper()
	l3, err := lab.Load(filepath.Join("testdata", "three-tenants.yaml"))
	if err != nil {
		t.Fatalf("load three-tenants lab: %v", err)
	}
	return map[string]*lab.Lab{"default": lab.Default(), "three-tenants": l3}
}

// dindOptions are the options of the Dagger path: the management API server
// published on the DinD host as docker:6443, tenants reachable there too.
var dindOptions = Options{
	ManagementAddress: "172.18.0.2",
	APIServerAddress:  "0.0.0.0",
	APIServerPort:     6443,
	CertSANs:          []string{"docker"},
	PublishNodePorts:  true,
}

// cgroupV1Options are dindOptions on a cgroup v1 host.
func cgroupV1Options() Options {
	o := dindOptions
	o.CgroupV1 = true
	return o
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
