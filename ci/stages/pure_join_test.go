package stages

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestJoinCommand(t *testing.T) {
	hash := "sha256:" + strings.Repeat("ab", 32)
	ok := JoinSpec{Endpoint: "172.18.0.2:31443", Token: "abcdef.0123456789abcdef", CACertHash: hash, NodeName: "gpu-lab-tenant-a-worker"}
	got, err := JoinCommand(ok)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"kubeadm", "join", "172.18.0.2:31443", "--token", "abcdef.0123456789abcdef",
		"--discovery-token-ca-cert-hash", hash, "--node-name", "gpu-lab-tenant-a-worker",
		"--skip-phases=preflight"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if r := RedactJoin(got); r[4] != "abcdef.<secret>" || strings.Contains(strings.Join(r, " "), "0123456789abcdef") {
		t.Errorf("RedactJoin leaked the secret: %q", r)
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
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			tt.mutate(&s)
			if _, err := JoinCommand(s); err == nil || !strings.Contains(err.Error(), tt.errHas) {
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
