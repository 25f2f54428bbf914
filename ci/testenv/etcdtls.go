package testenv

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// etcdTLS is what reaches the shared etcd: its listeners take only TLS
// clients holding a certificate of the environment's etcd CA (etcd-embed's
// --trusted-ca-file; client-cert-auth is always on), so another local user,
// who can connect to loopback but not read the 0600 keys in the work dir,
// can neither read a tenant's Secrets nor write any key.
type etcdTLS struct {
	// caFile is the etcd CA's certificate (the API servers' --etcd-cafile,
	// etcd's --trusted-ca-file).
	caFile string
	// serverCert/serverKey are etcd's (--cert-file/--key-file); the
	// certificate is a client one too, for etcd's own gateway.
	serverCert, serverKey string
	// clientCert/clientKey are the API servers' (--etcd-certfile,
	// --etcd-keyfile) and this process's.
	clientCert, clientKey string
	// config is the client side for this process (health, etcdKeys).
	config *tls.Config
}

// writeEtcdTLS makes the etcd CA and the two certificates and writes them
// into dir (keys 0600). Its own CA, not a tenant's: a tenant's CA signs
// that tenant's users' client certificates, and none of them may reach
// etcd.
func writeEtcdTLS(dir string) (*etcdTLS, error) {
	authority, err := newCA("gpu-lab-testenv-etcd-ca")
	if err != nil {
		return nil, err
	}
	server, err := authority.issue(certSpec{CommonName: "etcd", DNSNames: []string{"localhost"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)},
		Server: true, Client: true})
	if err != nil {
		return nil, err
	}
	client, err := authority.issue(certSpec{CommonName: "kube-apiserver-etcd-client", Client: true})
	if err != nil {
		return nil, err
	}
	t := &etcdTLS{}
	// The CA's key is never written: nothing issues certificates later.
	t.caFile = filepath.Join(dir, "etcd-ca.crt")
	if err := os.WriteFile(t.caFile, authority.certPEM, 0o644); err != nil {
		return nil, err
	}
	if t.serverCert, t.serverKey, err = writePair(dir, "etcd-server", server); err != nil {
		return nil, fmt.Errorf("write etcd's certificate: %w", err)
	}
	if t.clientCert, t.clientKey, err = writePair(dir, "etcd-client", client); err != nil {
		return nil, fmt.Errorf("write etcd's client certificate: %w", err)
	}
	pair, err := tls.X509KeyPair(client.CertPEM, client.KeyPEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(authority.cert)
	t.config = &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, MinVersion: tls.VersionTLS12}
	return t, nil
}

// apiServerArgs are a tenant API server's etcd client flags.
func (t *etcdTLS) apiServerArgs() []string {
	return []string{"--etcd-cafile=" + t.caFile, "--etcd-certfile=" + t.clientCert, "--etcd-keyfile=" + t.clientKey}
}
