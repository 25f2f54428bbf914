package testenv

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// apiServerMoved points everything that names the tenant's API server at
// its new port after startBound moved it: every kubeconfig in the tenant
// dir, the admin kubeconfig and client kept in memory. Nothing has read
// them yet: the first reader (waitAPIServer) runs after the API server is
// bound. The serving certificate names 127.0.0.1, not a port, and stays.
func (t *tenant) apiServerMoved() error {
	t.server = fmt.Sprintf("https://127.0.0.1:%d", t.apiPort)
	files, err := filepath.Glob(t.path("*.kubeconfig"))
	if err != nil {
		return err
	}
	for _, f := range files {
		cfg, err := clientcmd.LoadFromFile(f)
		if err != nil {
			return fmt.Errorf("kubeconfig %s: %w", f, err)
		}
		for _, c := range cfg.Clusters {
			c.Server = t.server
		}
		b, err := clientcmd.Write(*cfg)
		if err != nil {
			return fmt.Errorf("kubeconfig %s: %w", f, err)
		}
		if err := os.WriteFile(f, b, 0o600); err != nil {
			return err
		}
		if f == t.path("admin.kubeconfig") {
			t.kubeconfig = b
		}
	}
	t.rest = restConfig(t.server, t.ca.certPEM, t.admin)
	t.client, err = kubernetes.NewForConfig(t.rest)
	return err
}
