package kubeconfig

import (
	"fmt"
	"net/url"

	"k8s.io/client-go/tools/clientcmd"
)

// RewriteServer points every cluster of a kubeconfig at server. Kamaji
// writes the advertised address (the management node on the kind network)
// and kind writes 0.0.0.0 for a remote daemon; neither is always reachable
// from where labctl runs.
func RewriteServer(kubeconfig []byte, server string) ([]byte, error) {
	u, err := url.Parse(server)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("rewrite kubeconfig: server %q: want https://host:port", server)
	}
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("rewrite kubeconfig: %w", err)
	}
	if len(cfg.Clusters) == 0 {
		return nil, fmt.Errorf("rewrite kubeconfig: it has no clusters")
	}
	for _, c := range cfg.Clusters {
		c.Server = server
	}
	return clientcmd.Write(*cfg)
}

// KubeconfigServer returns the server of the kubeconfig's current context
// (or its only cluster).
func Server(kubeconfig []byte) (string, error) {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return "", err
	}
	if ctx, ok := cfg.Contexts[cfg.CurrentContext]; ok {
		if c, ok := cfg.Clusters[ctx.Cluster]; ok {
			return c.Server, nil
		}
	}
	for _, c := range cfg.Clusters {
		return c.Server, nil
	}
	return "", fmt.Errorf("kubeconfig has no clusters")
}

// KubeconfigCA returns the CA of the kubeconfig's current cluster.
func CA(kubeconfig []byte) ([]byte, error) {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return nil, err
	}
	if ctx, ok := cfg.Contexts[cfg.CurrentContext]; ok {
		if c, ok := cfg.Clusters[ctx.Cluster]; ok && len(c.CertificateAuthorityData) > 0 {
			return c.CertificateAuthorityData, nil
		}
	}
	for _, c := range cfg.Clusters {
		if len(c.CertificateAuthorityData) > 0 {
			return c.CertificateAuthorityData, nil
		}
	}
	return nil, fmt.Errorf("kubeconfig has no certificate-authority-data")
}
