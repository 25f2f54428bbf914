package hamidouble

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// listenAndServe runs the double the way HAMi v2.10.0's scheduler runs
// (cmd/scheduler/main.go@v2.10.0, start()): build the client and start the
// informers, then serve /metrics on --metrics-bind-address, then HAMi's
// routes on --http_bind — over TLS from --cert_file/--key_file when both are
// given, else plain HTTP, as HAMi does. The metrics listener also serves the
// double's test controls (adminHandler). It returns when ctx ends (nil) or
// a listener fails; a lost bind's error says "address already in use", as
// Go's net package words it for HAMi too.
func listenAndServe(ctx context.Context, cfg Config) error {
	d := newDouble(cfg)
	cfg = d.cfg
	var tlsCfg *tls.Config
	if cfg.CertFile != "" && cfg.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
		if err != nil {
			return fmt.Errorf("%s: --cert_file=%s --key_file=%s: %w", Banner, cfg.CertFile, cfg.KeyFile, err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if err := d.start(ctx); err != nil {
		return err
	}
	metricsLn, err := net.Listen("tcp", cfg.MetricsBindAddress)
	if err != nil {
		return fmt.Errorf("%s: --metrics-bind-address: %w", Banner, err)
	}
	httpLn, err := net.Listen("tcp", cfg.HTTPBind)
	if err != nil {
		metricsLn.Close()
		return fmt.Errorf("%s: --http_bind: %w", Banner, err)
	}
	metricsMux := http.NewServeMux()
	metricsMux.Handle("/metrics", d.metricsHandler())
	metricsMux.Handle(AdminPrefix, d.adminHandler())
	// HAMi's own timeouts on its HTTP server (main.go@v2.10.0).
	servers := []*http.Server{
		{Handler: metricsMux, ReadHeaderTimeout: 15 * time.Second},
		{Handler: d.handler(), TLSConfig: tlsCfg, ReadHeaderTimeout: 15 * time.Second, ReadTimeout: 60 * time.Second},
	}
	errs := make(chan error, 2)
	go func() { errs <- servers[0].Serve(metricsLn) }()
	go func() {
		if tlsCfg != nil {
			errs <- servers[1].ServeTLS(httpLn, "", "")
			return
		}
		errs <- servers[1].Serve(httpLn)
	}()
	d.log.Info(Banner+": serving", "http_bind", httpLn.Addr().String(), "tls", tlsCfg != nil, "metrics", metricsLn.Addr().String())
	select {
	case <-ctx.Done():
		for _, s := range servers {
			_ = s.Close()
		}
		return nil
	case err := <-errs:
		for _, s := range servers {
			_ = s.Close()
		}
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("%s: %w", Banner, err)
	}
}

// restConfigLikeHAMi loads the client configuration the way HAMi v2.10.0's
// scheduler does (pkg/util/client/client.go@v2.10.0, loadKubeConfig): the
// file $KUBECONFIG, else $HOME/.kube/config, and when that cannot be built,
// the in-cluster configuration. It returns which one it used.
func restConfigLikeHAMi(getenv func(string) string) (*rest.Config, string, error) {
	path := getenv("KUBECONFIG")
	if path == "" {
		path = filepath.Join(getenv("HOME"), ".kube", "config")
	}
	cfg, fileErr := clientcmd.BuildConfigFromFlags("", path)
	if fileErr == nil {
		return cfg, "kubeconfig " + path, nil
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil, "", fmt.Errorf("%s: no client configuration: kubeconfig %s: %v; "+
			"in-cluster: %w (set KUBECONFIG as for HAMi's scheduler)", Banner, path, fileErr, err)
	}
	return cfg, "in-cluster configuration", nil
}
