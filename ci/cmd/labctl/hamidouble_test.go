package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// `labctl internal hami-double` takes HAMi's command line and nothing else: a flag
// HAMi v2.10.0 does not define fails before anything starts, naming the
// flag and the double.
func TestHAMiDoubleRejectsAnUnknownFlag(t *testing.T) {
	err := hamidouble.Main(context.Background(), []string{"--http_bind=127.0.0.1:0", "--no-such-hami-flag=1"},
		func(string) string { return "" }, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no-such-hami-flag") || !strings.Contains(err.Error(), hamidouble.Banner) {
		t.Fatalf("unknown flag: %v", err)
	}
}

// Like HAMi's scheduler, the double reads its client configuration from
// $KUBECONFIG (then ~/.kube/config, then in-cluster); with none of them it
// fails saying where it looked.
func TestHAMiDoubleTakesItsKubeconfigLikeHAMi(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "device-config.yaml")
	if err := os.WriteFile(dev, []byte("nvidia:\n  deviceSplitCount: 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope.kubeconfig")
	env := map[string]string{"KUBECONFIG": missing, "HOME": dir}
	err := hamidouble.Main(context.Background(), []string{"--device-config-file=" + dev},
		func(k string) string { return env[k] }, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "in-cluster") {
		t.Fatalf("no kubeconfig: %v", err)
	}
}

// TestDoubleOnlyUnderInternal: the double is `labctl internal hami-double`
// and nothing else; labctl under another name, or hami-double at the top,
// is not it.
func TestDoubleOnlyUnderInternal(t *testing.T) {
	root := newRootCommand(streams{})
	if c, _, err := root.Find([]string{"internal", "hami-double"}); err != nil || c.Name() != "hami-double" {
		t.Errorf("labctl internal hami-double: %v", err)
	}
	for _, name := range []string{"hami-double", "hami-post-render"} {
		if c, _, err := root.Find([]string{name}); err == nil && c != root {
			t.Errorf("labctl %s is a top-level command; want it only under internal", name)
		}
	}
}
