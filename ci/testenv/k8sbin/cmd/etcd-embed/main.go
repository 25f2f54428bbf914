// Command etcd-embed runs a single-member etcd on loopback for the local test
// environment. Durability is traded for speed (no fsync): the data dir is
// thrown away with the environment.
package main

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
)

func main() {
	dataDir := flag.String("data-dir", "", "data directory (required)")
	clientPort := flag.Int("client-port", 2379, "client port on 127.0.0.1")
	peerPort := flag.Int("peer-port", 2380, "peer port on 127.0.0.1")
	// etcd's own flag names (go.etcd.io/etcd/server/v3@v3.6.8
	// embed/config.go:840-847): --cert-file, --key-file, --trusted-ca-file;
	// --client-cert-auth is always on here.
	certFile := flag.String("cert-file", "", "serving certificate, also used as the client certificate of etcd's own gRPC gateway (required)")
	keyFile := flag.String("key-file", "", "key of --cert-file (required)")
	caFile := flag.String("trusted-ca-file", "", "CA a client certificate must be signed by (required)")
	flag.Parse()
	if *dataDir == "" || *certFile == "" || *keyFile == "" || *caFile == "" {
		fmt.Fprintln(os.Stderr, "etcd-embed: --data-dir, --cert-file, --key-file and --trusted-ca-file are required")
		os.Exit(2)
	}

	cfg := embed.NewConfig()
	cfg.Name = "testenv"
	cfg.Dir = *dataDir
	cfg.UnsafeNoFsync = true
	cfg.LogLevel = "warn"
	// embed.NewConfig leaves this 0, unlike etcd's --warning-unary-request-duration
	// flag (300 ms): every request then took the "expensive request" path and
	// was logged at warn with its content, about 7% of etcd's processor time
	// during a start (go.etcd.io/etcd/server/v3@v3.6.8: embed/config.go
	// NewConfig, etcdserver/api/v3rpc/interceptor.go logUnaryRequestStats).
	cfg.WarningUnaryRequestDuration = embed.DefaultWarningUnaryRequestDuration
	// A single member on loopback: a 10 ms tick and 100 ms election timeout
	// (defaults 100 ms and 1 s) make it elect itself within ~0.1 s of
	// starting instead of after 0.1-1 s (the election timeout is randomised
	// and InitialElectionTickAdvance skips only part of it); the API servers
	// wait for that. There are no peers whose heartbeats the short tick
	// would multiply.
	cfg.TickMs = 10
	cfg.ElectionMs = 100
	// Any local user can connect to loopback: both listeners take only TLS
	// clients with a certificate of the environment's etcd CA, which only
	// the API servers hold (the key files are 0600 in the work dir). The
	// URLs are https because etcd ignores the TLS files and client-cert-auth
	// on an http (or unix) URL (embed/etcd.go:570-577 configurePeerListeners,
	// :662-670 configureClientListeners). A trusted CA alone already makes
	// the server require and verify client certificates
	// (go.etcd.io/etcd/client/pkg/v3@v3.6.8 transport/listener.go:540-541);
	// ClientCertAuth says so explicitly. Its gateway dials the client listener with --cert-file when no
	// client-cert-file is given (embed/config.go:842), so that certificate
	// is a client certificate too. The peer listener serves nobody (one
	// member) but would otherwise accept raft messages over plain HTTP.
	tlsInfo := transport.TLSInfo{CertFile: *certFile, KeyFile: *keyFile, TrustedCAFile: *caFile, ClientCertAuth: true}
	cfg.ClientTLSInfo, cfg.PeerTLSInfo = tlsInfo, tlsInfo
	client := url.URL{Scheme: "https", Host: fmt.Sprintf("127.0.0.1:%d", *clientPort)}
	peer := url.URL{Scheme: "https", Host: fmt.Sprintf("127.0.0.1:%d", *peerPort)}
	cfg.ListenClientUrls = []url.URL{client}
	cfg.AdvertiseClientUrls = []url.URL{client}
	cfg.ListenPeerUrls = []url.URL{peer}
	cfg.AdvertisePeerUrls = []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd-embed: start:", err)
		os.Exit(1)
	}
	select {
	case <-e.Server.ReadyNotify():
		fmt.Fprintln(os.Stderr, "etcd-embed: ready on", client.String())
	case <-time.After(60 * time.Second):
		e.Server.Stop()
		fmt.Fprintln(os.Stderr, "etcd-embed: not ready after 60s")
		os.Exit(1)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case s := <-sig:
		fmt.Fprintln(os.Stderr, "etcd-embed: stopping on", s)
		e.Close()
	case err := <-e.Err():
		fmt.Fprintln(os.Stderr, "etcd-embed:", err)
		e.Close()
		os.Exit(1)
	}
}
