package testenv

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
)

// etcdKeys lists every key under prefix in the shared etcd (through etcd's
// v3 JSON gateway, keys only), sorted. Each tenant's API server stores its
// objects under "/<tenant>/", so etcdKeys(ctx, "/tenant-a/") shows what
// tenant-a owns and nothing of tenant-b.
func (e *Env) etcdKeys(ctx context.Context, prefix string) ([]string, error) {
	if prefix == "" {
		return nil, fmt.Errorf("etcd keys: prefix is empty; pass e.g. \"/tenant-a/\"")
	}
	if e.etcdTLS == nil {
		return nil, fmt.Errorf("etcd keys under %s: the environment's etcd never started", prefix)
	}
	body, _ := json.Marshal(map[string]any{
		"key":       base64.StdEncoding.EncodeToString([]byte(prefix)),
		"range_end": base64.StdEncoding.EncodeToString(prefixEnd([]byte(prefix))),
		"keys_only": true,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.etcdURL+"/v3/kv/range", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	resp, err := e.etcdHTTPClient(0).Do(req)
	if err != nil {
		return nil, fmt.Errorf("etcd keys under %s: %w", prefix, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("etcd keys under %s: %s", prefix, resp.Status)
	}
	var out struct {
		KVs []struct {
			Key string `json:"key"`
		} `json:"kvs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("etcd keys under %s: %w", prefix, err)
	}
	keys := make([]string, 0, len(out.KVs))
	for _, kv := range out.KVs {
		k, err := base64.StdEncoding.DecodeString(kv.Key)
		if err != nil {
			return nil, fmt.Errorf("etcd keys under %s: %w", prefix, err)
		}
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	return keys, nil
}

// prefixEnd is the range end covering every key that starts with prefix.
func prefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return []byte{0}
}
