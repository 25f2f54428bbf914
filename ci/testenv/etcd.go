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
	e.etcdURL = fmt.Sprintf("http://127.0.0.1:%d", client)
	moved := func() error {
		e.etcdURL = fmt.Sprintf("http://127.0.0.1:%d", client)
		// embed binds before it creates the data dir; removed anyway so
		// no member record names the old ports.
		return os.RemoveAll(dataDir)
	}
	p, err := e.startBound(ctx, "etcd", filepath.Join(e.bins, bincache.Etcd), []string{
		"--data-dir", dataDir,
		"--client-port", strconv.Itoa(client),
		"--peer-port", strconv.Itoa(peer),
	}, filepath.Join(e.workDir, "etcd.log"), []*int{&client, &peer}, moved)
	if err != nil {
		return err
	}
	hc := &http.Client{Timeout: time.Second}
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
