package testenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// startEtcd runs the shared embedded etcd and waits until it is healthy.
func (e *Env) startEtcd(ctx context.Context) error {
	ports, err := e.ports.frees(etcdPorts)
	if err != nil {
		return err
	}
	client, peer := ports[0], ports[1]
	dataDir := filepath.Join(e.workDir, "etcd")
	if e.etcdTLS, err = writeEtcdTLS(e.workDir); err != nil {
		return fmt.Errorf("etcd certificates in %s: %w", e.workDir, err)
	}
	e.etcdURL = fmt.Sprintf("https://127.0.0.1:%d", client)
	moved := func() error {
		e.etcdURL = fmt.Sprintf("https://127.0.0.1:%d", client)
		// embed binds before it creates the data dir; removed anyway so
		// no member record names the old ports.
		return os.RemoveAll(dataDir)
	}
	p, err := e.startBound(ctx, "etcd", filepath.Join(e.bins, bincache.Etcd), []string{
		"--data-dir", dataDir,
		"--client-port", strconv.Itoa(client),
		"--peer-port", strconv.Itoa(peer),
		"--cert-file", e.etcdTLS.serverCert,
		"--key-file", e.etcdTLS.serverKey,
		"--trusted-ca-file", e.etcdTLS.caFile,
	}, filepath.Join(e.workDir, "etcd.log"), []*int{&client, &peer}, moved)
	if err != nil {
		return err
	}
	hc := e.etcdHTTPClient(time.Second)
	return waitFor(ctx, "etcd health", 50*time.Millisecond, []*process{p}, func(ctx context.Context) (bool, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.etcdURL+"/health", nil)
		resp, err := hc.Do(req)
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		var h struct{ Health string }
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
			return false, err
		}
		return h.Health == "true", nil
	})
}

// errEtcdFailed is what a tenant's etcd step says when etcd did not start;
// Start reports etcd's own error instead.
var errEtcdFailed = errors.New("etcd did not start")

// waitEtcd returns once the shared etcd is healthy: the API server's
// --etcd-servers is final only then (startBound may move etcd's port).
func (e *Env) waitEtcd(ctx context.Context) error {
	select {
	case <-e.etcdDone:
		if e.etcdErr != nil {
			return errEtcdFailed
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// etcdHTTPClient talks to the shared etcd's HTTP endpoints (/health, the
// v3 JSON gateway) with the API servers' client certificate.
func (e *Env) etcdHTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{TLSClientConfig: e.etcdTLS.config}}
}
