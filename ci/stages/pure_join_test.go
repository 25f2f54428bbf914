package stages

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func TestJoinConfiguration(t *testing.T) {
	hash := "sha256:" + strings.Repeat("ab", 32)
	ok := JoinSpec{Endpoint: "172.18.0.2:31443", Token: "abcdef.0123456789abcdef", CACertHash: hash, NodeName: "gpu-lab-tenant-a-worker", NodeIP: "172.18.0.9"}
	got, err := JoinConfiguration(ok)
	if err != nil {
		t.Fatal(err)
	}
	// What kubeadm reads, as a generic document: every field at the path
	// kubeadm v1beta4 names (the kubeadm test validates it for real).
	var doc map[string]any
	if err := yaml.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
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
	if !reflect.DeepEqual(doc, want) {
		t.Fatalf("got  %v\nwant %v", doc, want)
	}
	if !reflect.DeepEqual(JoinCommand, []string{"kubeadm", "join", "--config", "/kind/kubeadm.conf"}) {
		t.Errorf("JoinCommand = %q", JoinCommand)
	}
	bad := []struct {
		name   string
		mutate func(*JoinSpec)
		errHas string
	}{
		{"scheme in endpoint", func(s *JoinSpec) { s.Endpoint = "https://172.18.0.2:31443" }, "want host:port"},
		{"no port", func(s *JoinSpec) { s.Endpoint = "172.18.0.2" }, "want host:port"},
		{"short token", func(s *JoinSpec) { s.Token = "abc.def" }, "join token"},
		{"uppercase token", func(s *JoinSpec) { s.Token = "ABCDEF.0123456789abcdef" }, "join token"},
		{"hash without prefix", func(s *JoinSpec) { s.CACertHash = strings.Repeat("ab", 32) }, "sha256:<64 hex"},
		{"no node name", func(s *JoinSpec) { s.NodeName = "" }, "node name"},
		{"no node IP", func(s *JoinSpec) { s.NodeIP = "" }, "join node IP"},
		{"IPv6 node IP", func(s *JoinSpec) { s.NodeIP = "fc00:f853:ccd:e793::9" }, "want the worker's IPv4"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			tt.mutate(&s)
			if _, err := JoinConfiguration(s); err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("err = %v, want %q", err, tt.errHas)
			}
		})
	}
}

func TestBootstrapToken(t *testing.T) {
	id, secret, err := NewBootstrapToken(bytes.NewReader(bytes.Repeat([]byte{1, 37, 200}, 10)))
	if err != nil {
		t.Fatal(err)
	}
	if !tokenRe.MatchString(id + "." + secret) {
		t.Fatalf("token %s.%s does not match kubeadm's format", id, secret)
	}
	if _, _, err := NewBootstrapToken(bytes.NewReader([]byte{1})); err == nil {
		t.Fatal("short randomness: want error")
	}
	exp := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	s := BootstrapTokenSecret(id, secret, exp)
	if s.Name != "bootstrap-token-"+id || s.Namespace != "kube-system" || s.Type != corev1.SecretTypeBootstrapToken {
		t.Errorf("secret meta = %s/%s %s", s.Namespace, s.Name, s.Type)
	}
	for k, v := range map[string]string{"token-id": id, "token-secret": secret, "expiration": "2026-11-30T02:00:00Z",
		"usage-bootstrap-authentication": "true", "usage-bootstrap-signing": "true",
		"auth-extra-groups": "system:bootstrappers:kubeadm:default-node-token"} {
		if s.StringData[k] != v {
			t.Errorf("%s = %q, want %q", k, s.StringData[k], v)
		}
	}
}

// The expected hash was computed with kubeadm's documented recipe:
// openssl x509 -pubkey -in ca.crt -noout | openssl rsa -pubin -outform der | sha256sum
func TestCACertHash(t *testing.T) {
	pem, err := os.ReadFile("testdata/ca.crt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := CACertHash(pem)
	if err != nil {
		t.Fatal(err)
	}
	if want := "sha256:359f7f27e47be62b90694b181dacd65c2c0a4f79a616c37277b5752307b78e24"; got != want {
		t.Fatalf("CACertHash = %s, want %s", got, want)
	}
	if _, err := CACertHash([]byte("not pem")); err == nil {
		t.Fatal("garbage: want error")
	}
	kc := kubeconfig(t, map[string]string{"t": "https://x:1"}, "t")
	ca, err := KubeconfigCA(kc)
	if err != nil || string(ca) != "ca-t" {
		t.Fatalf("KubeconfigCA = %q, %v", ca, err)
	}
}
