package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/state"
)

func TestShellEnv(t *testing.T) {
	d := state.Dir(t.TempDir())
	env, err := ShellEnv(d, []string{"tenant-a", "tenant-b"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	a, b, m := d.Kubeconfig("tenant-a"), d.Kubeconfig("tenant-b"), d.ManagementKubeconfig()
	if got["KUBECONFIG_TENANT_A"] != a || got["KUBECONFIG_TENANT_B"] != b || got["KUBECONFIG_MANAGEMENT"] != m {
		t.Errorf("per-cluster vars = %v", got)
	}
	if got["KUBECONFIG"] != strings.Join([]string{a, b, m}, ":") {
		t.Errorf("KUBECONFIG = %q", got["KUBECONFIG"])
	}
	if !filepath.IsAbs(got["KUBECONFIG_TENANT_A"]) {
		t.Error("paths must be absolute")
	}
	rel, err := ShellEnv(state.Dir(".lab"), []string{"x"})
	if err != nil || !filepath.IsAbs(strings.SplitN(rel[0], "=", 2)[1]) {
		t.Errorf("relative state dir: %v %v", rel, err)
	}
}
