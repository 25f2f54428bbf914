package kubeconfig

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const tokenChars = "abcdefghijklmnopqrstuvwxyz0123456789"

// NewBootstrapToken draws a kubeadm bootstrap token id and secret from r
// (crypto/rand in production).
func NewBootstrapToken(r io.Reader) (id, secret string, err error) {
	b := make([]byte, 22)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", "", fmt.Errorf("bootstrap token: %w", err)
	}
	s := make([]byte, len(b))
	for i, c := range b {
		s[i] = tokenChars[int(c)%len(tokenChars)]
	}
	return string(s[:6]), string(s[6:]), nil
}

// BootstrapTokenSecret is the Secret `kubeadm token create` writes: usable
// for authentication and for signing cluster-info, in kubeadm's default
// node group, expiring at expires.
func BootstrapTokenSecret(id, secret string, expires time.Time) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: "bootstrap-token-" + id, Namespace: "kube-system"},
		Type:       corev1.SecretTypeBootstrapToken,
		StringData: map[string]string{
			"token-id":                       id,
			"token-secret":                   secret,
			"expiration":                     expires.UTC().Format(time.RFC3339),
			"usage-bootstrap-authentication": "true",
			"usage-bootstrap-signing":        "true",
			"auth-extra-groups":              "system:bootstrappers:kubeadm:default-node-token",
			"description":                    "gpu-lab worker join",
		},
	}
}

// CACertHash is kubeadm's discovery hash of a CA: sha256 over the
// certificate's SubjectPublicKeyInfo.
func CACertHash(caPEM []byte) (string, error) {
	block, _ := pem.Decode(caPEM)
	if block == nil || block.Type != "CERTIFICATE" {
		return "", fmt.Errorf("CA: no PEM certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return "", fmt.Errorf("CA: %w", err)
	}
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}
