package testenv

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeconfig renders a self-contained kubeconfig (certificates inline) whose
// cluster and context are named after the tenant, as `labctl up` writes them.
func kubeconfig(tenant, server string, caPEM []byte, client keyPair) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[tenant] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[tenant] = &clientcmdapi.AuthInfo{ClientCertificateData: client.CertPEM, ClientKeyData: client.KeyPEM}
	cfg.Contexts[tenant] = &clientcmdapi.Context{Cluster: tenant, AuthInfo: tenant}
	cfg.CurrentContext = tenant
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig for %s: %w", tenant, err)
	}
	return b, nil
}

func restConfig(server string, caPEM []byte, client keyPair) *rest.Config {
	return &rest.Config{
		Host: server,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   caPEM,
			CertData: client.CertPEM,
			KeyData:  client.KeyPEM,
		},
		QPS:   100,
		Burst: 200,
	}
}
