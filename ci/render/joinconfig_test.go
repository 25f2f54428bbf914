package render

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestJoinConfiguration holds the rendered document to the paths kubeadm
// v1beta4 names, read back as a generic document (ci/stages/kubeadmcheck
// has kubeadm itself validate it), and each field JoinConfiguration checks
// to its error.
func TestJoinConfiguration(t *testing.T) {
	hash := "sha256:" + strings.Repeat("ab", 32)
	ok := JoinSpec{Endpoint: "172.18.0.2:31443", Token: "abcdef.0123456789abcdef", CACertHash: hash, NodeName: "gpu-lab-tenant-a-worker",
		NodeIP: "172.18.0.9"}
	want := map[string]any{
		"apiVersion": "kubeadm.k8s.io/v1beta4",
		"kind":       "JoinConfiguration",
		"discovery": map[string]any{"bootstrapToken": map[string]any{
			"apiServerEndpoint": "172.18.0.2:31443", "token": "abcdef.0123456789abcdef", "caCertHashes": []any{hash},
		}},
		"nodeRegistration": map[string]any{
			"name": "gpu-lab-tenant-a-worker", "criSocket": "unix:///run/containerd/containerd.sock",
			"kubeletExtraArgs": []any{map[string]any{"name": "node-ip", "value": "172.18.0.9"}},
		},
		"skipPhases": []any{"preflight"},
	}
	for _, tt := range []struct {
		name   string
		mutate func(*JoinSpec)
		errHas string // empty: renders want
	}{
		{"valid", func(*JoinSpec) {}, ""},
		{"scheme in endpoint", func(s *JoinSpec) { s.Endpoint = "https://172.18.0.2:31443" }, "want host:port"},
		{"no port", func(s *JoinSpec) { s.Endpoint = "172.18.0.2" }, "want host:port"},
		{"short token", func(s *JoinSpec) { s.Token = "abc.def" }, "join token"},
		{"uppercase token", func(s *JoinSpec) { s.Token = "ABCDEF.0123456789abcdef" }, "join token"},
		{"hash without prefix", func(s *JoinSpec) { s.CACertHash = strings.Repeat("ab", 32) }, "sha256:<64 hex"},
		{"no node name", func(s *JoinSpec) { s.NodeName = "" }, "node name"},
		{"no node IP", func(s *JoinSpec) { s.NodeIP = "" }, "join node IP"},
		{"IPv6 node IP", func(s *JoinSpec) { s.NodeIP = "fc00:f853:ccd:e793::9" }, "want the worker's IPv4"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			tt.mutate(&s)
			got, err := JoinConfiguration(s)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := yaml.Unmarshal(got, &doc); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(doc, want) {
				t.Fatalf("got  %v\nwant %v", doc, want)
			}
		})
	}
}

// The plan's placeholders are rendered as they are: no check refuses them.
func TestUncheckedJoinConfigurationKeepsPlaceholders(t *testing.T) {
	got, err := UncheckedJoinConfiguration(JoinSpec{Endpoint: "<mgmt>:31443", Token: "<new bootstrap token>", CACertHash: "sha256:<hash>",
		NodeName: "w", NodeIP: "<IPv4 of w>"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"token: <new bootstrap token>", "- sha256:<hash>", "value: <IPv4 of w>"} {
		if !strings.Contains(string(got), p) {
			t.Errorf("rendered without %q:\n%s", p, got)
		}
	}
}
