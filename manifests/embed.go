// Package manifests holds the static Kubernetes manifests gpu-lab applies:
// everything that does not depend on the lab file. Manifests that do are
// rendered from typed values by ci/render.
package manifests

import (
	"embed"
	"fmt"
)

//go:embed *.yaml
var files embed.FS

// Names of the static manifests.
const (
	// TenantKubeProxyRBAC is kube-proxy's ServiceAccount and binding to
	// system:node-proxier, applied to every tenant cluster.
	TenantKubeProxyRBAC = "tenant-kube-proxy-rbac.yaml"
)

// Names lists every static manifest.
func Names() []string {
	entries, _ := files.ReadDir(".")
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// Read returns a static manifest by name.
func Read(name string) ([]byte, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("static manifest %q: %w", name, err)
	}
	return b, nil
}
