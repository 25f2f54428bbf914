package kubeconfig

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

func TestBootstrapToken(t *testing.T) {
	id, secret, err := NewBootstrapToken(bytes.NewReader(bytes.Repeat([]byte{1, 37, 200}, 10)))
	if err != nil {
		t.Fatal(err)
	}
	// The token is one the worker's JoinConfiguration takes (kubeadm's
	// format, which render checks).
	if _, err := render.JoinConfiguration(render.JoinSpec{Endpoint: "172.18.0.2:31443", Token: id + "." + secret,
		CACertHash: "sha256:" + strings.Repeat("ab", 32), NodeName: "w", NodeIP: "172.18.0.9"}); err != nil {
		t.Fatalf("token %s.%s: %v", id, secret, err)
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
	ca, err := CA(kc)
	if err != nil || string(ca) != "ca-t" {
		t.Fatalf("CA = %q, %v", ca, err)
	}
}
