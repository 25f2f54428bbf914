// Package kubeconfigtest writes kubeconfigs for tests: one cluster, user and
// context per name, each cluster with the CA bytes "ca-<name>", so a test
// can tell whether a rewrite kept a cluster's CA.
package kubeconfigtest

import (
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Write returns a kubeconfig with a cluster, user and context per entry of
// servers (name → server URL) and current as its current context.
func Write(t testing.TB, servers map[string]string, current string) []byte {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	for name, s := range servers {
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: s, CertificateAuthorityData: []byte("ca-" + name)}
		cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: "t"}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	cfg.CurrentContext = current
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
