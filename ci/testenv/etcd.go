package testenv

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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
	e.etcdURL = fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	p, err := e.start("etcd", filepath.Join(e.bins, binEtcd), []string{
		"--data-dir", filepath.Join(e.workDir, "etcd"),
		"--client-port", strconv.Itoa(ports[0]),
		"--peer-port", strconv.Itoa(ports[1]),
	}, filepath.Join(e.workDir, "etcd.log"))
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
