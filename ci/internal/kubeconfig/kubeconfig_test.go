package kubeconfig

import (
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/internal/kubeconfig/kubeconfigtest"
	"k8s.io/client-go/tools/clientcmd"
)

func TestRewriteServer(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		server  string
		errHas  string
		wantAll string
	}{
		{"kamaji admin.conf to the docker host", kubeconfig(t, map[string]string{"tenant-a": "https://172.18.0.2:31443"}, "tenant-a"),
			"https://docker:31443", "", "https://docker:31443"},
		{"every cluster rewritten", kubeconfig(t, map[string]string{"a": "https://0.0.0.0:6443", "b": "https://0.0.0.0:6443"}, "a"),
			"https://127.0.0.1:6443", "", "https://127.0.0.1:6443"},
		{"scheme required", kubeconfig(t, map[string]string{"a": "https://x:1"}, "a"), "docker:31443", "want https://host:port", ""},
		{"http refused", kubeconfig(t, map[string]string{"a": "https://x:1"}, "a"), "http://docker:31443", "want https://host:port", ""},
		{"no clusters", []byte("apiVersion: v1\nkind: Config\n"), "https://docker:1", "no clusters", ""},
		{"garbage", []byte("{{{"), "https://docker:1", "rewrite kubeconfig", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := RewriteServer(tt.in, tt.server)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := clientcmd.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			for name, c := range cfg.Clusters {
				if c.Server != tt.wantAll {
					t.Errorf("cluster %s server = %s, want %s", name, c.Server, tt.wantAll)
				}
				if string(c.CertificateAuthorityData) != "ca-"+name {
					t.Errorf("cluster %s lost its CA", name)
				}
			}
			if s, _ := Server(out); s != tt.wantAll {
				t.Errorf("Server = %s", s)
			}
		})
	}
}

var kubeconfig = kubeconfigtest.Write
