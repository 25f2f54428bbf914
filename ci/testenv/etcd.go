package testenv

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// startEtcd runs the shared embedded etcd and waits until it is healthy.
func (e *Env) startEtcd(ctx context.Context) error {
	ports, err := e.ports.frees(2)
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
	p, err := e.startBound(ctx, "etcd", filepath.Join(e.bins, binEtcd), []string{
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
