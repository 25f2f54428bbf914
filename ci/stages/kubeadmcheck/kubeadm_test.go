package kubeadmcheck_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/testenv/bincache"
)

// kubeadm returns the kubeadm the binary cache builds, with the local test
// environment's binaries, at the pinned Kubernetes version
// (ci/testenv/k8sbin). The first call after a change to that module builds
// every binary once (minutes); later calls find them in the cache. -short skips: it is the one test here that needs
// the build.
func kubeadm(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping: needs kubeadm from the k8sbin build (run without -short)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	dir, err := bincache.EnsureBinaries(ctx, nil)
	if err != nil {
		t.Fatalf("build kubeadm: %v", err)
	}
	bin := filepath.Join(dir, bincache.Kubeadm)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the k8sbin build has no kubeadm: %v", err)
	}
	return bin
}

func runKubeadm(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// TestKubeadmValidatesTheWorkerJoinConfiguration hands the JoinConfiguration
// a worker reads to `kubeadm config validate` (kubeadm v1.36.3
// cmd/kubeadm/app/cmd/config.go: strict decoding, then the same
// ValidateJoinConfiguration `kubeadm join` runs). The broken variants show
// the tool judges the file: a misspelt field and a token kubeadm would
// refuse are rejected.
func TestKubeadmValidatesTheWorkerJoinConfiguration(t *testing.T) {
	bin := kubeadm(t)
	conf, err := render.JoinConfiguration(render.JoinSpec{
		Endpoint: "172.18.0.2:31443", Token: "abcdef.0123456789abcdef",
		CACertHash: "sha256:359f7f27e47be62b90694b181dacd65c2c0a4f79a616c37277b5752307b78e24",
		NodeName:   "gpu-lab-tenant-a-worker", NodeIP: "172.18.0.9",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		edit    func(string) string
		wantErr string
	}{
		{"as rendered", func(s string) string { return s }, ""},
		{"misspelt field", func(s string) string { return strings.Replace(s, "caCertHashes", "caCertHash", 1) },
			`unknown field "discovery.bootstrapToken.caCertHash"`},
		{"bad token", func(s string) string { return strings.Replace(s, "abcdef.0123", "abcdef.X123", 1) }, "the bootstrap token is invalid"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "kubeadm.conf")
			if err := os.WriteFile(f, []byte(tt.edit(string(conf))), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := runKubeadm(t, bin, "config", "validate", "--config", f)
			switch {
			case tt.wantErr == "" && (err != nil || strings.TrimSpace(out) != "ok"):
				t.Fatalf("kubeadm config validate: %v\n%s\n--- file ---\n%s", err, out, tt.edit(string(conf)))
			case tt.wantErr != "" && (err == nil || !strings.Contains(out, tt.wantErr)):
				t.Fatalf("kubeadm config validate = %v, %q; want an error with %q", err, out, tt.wantErr)
			}
		})
	}
}

// TestKubeadmKnowsTheSkippedJoinPhases: kubeadm config validate does not
// check skipPhases, so the phase names are held to `kubeadm join phase
// --help` of the same kubeadm.
func TestKubeadmKnowsTheSkippedJoinPhases(t *testing.T) {
	bin := kubeadm(t)
	out, err := runKubeadm(t, bin, "join", "phase", "--help")
	if err != nil {
		t.Fatalf("kubeadm join phase --help: %v\n%s", err, out)
	}
	_, cmds, ok := strings.Cut(out, "Available Commands:")
	if !ok {
		t.Fatalf("kubeadm join phase --help lists no commands:\n%s", out)
	}
	phases := map[string]bool{}
	for _, l := range strings.Split(cmds, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(l, "  ") {
			phases[f[0]] = true
		}
	}
	for _, p := range render.JoinSkipPhases {
		if !phases[p] {
			t.Errorf("skipPhases names %q, which kubeadm's join phases (%v) do not have", p, phases)
		}
	}
}
