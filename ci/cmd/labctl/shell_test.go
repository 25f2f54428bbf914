package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

func envMap(env []string) map[string]string {
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	return got
}

func TestShellEnv(t *testing.T) {
	d := state.Dir(t.TempDir())
	if err := os.MkdirAll(filepath.Dir(d.ManagementKubeconfig()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.ManagementKubeconfig(), []byte(kubeconfigYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	env, err := ShellEnv(d, []string{"tenant-a", "tenant-b"})
	if err != nil {
		t.Fatal(err)
	}
	got := envMap(env)
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

// A state dir without a management cluster (the local test environment's)
// gets no variable naming a file that does not exist.
func TestShellEnvWithoutManagementCluster(t *testing.T) {
	d := state.Dir(t.TempDir())
	env, err := ShellEnv(d, []string{"tenant-a"})
	if err != nil {
		t.Fatal(err)
	}
	got := envMap(env)
	if _, ok := got["KUBECONFIG_MANAGEMENT"]; ok {
		t.Errorf("KUBECONFIG_MANAGEMENT set without a management kubeconfig: %v", env)
	}
	if got["KUBECONFIG"] != d.Kubeconfig("tenant-a") {
		t.Errorf("KUBECONFIG = %q, want only the tenant's", got["KUBECONFIG"])
	}
}

// writeLocalEnvState writes a state dir as `labctl testenv up` does
// (testenv.Env.WriteState): lab, tenant kubeconfigs, backend line, server
// version; no stages.json, no management kubeconfig.
func writeLocalEnvState(t *testing.T, kubeconfig []byte) state.Dir {
	t.Helper()
	d := newStateDir(t, state.Testenv)
	l := lab.Default()
	if err := d.WriteLab(l); err != nil {
		t.Fatal(err)
	}
	for _, tn := range l.TenantNames() {
		if err := d.WriteKubeconfig(tn, kubeconfig); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.WriteBackend(testenv.Backend); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteServerVersion(testenv.KubernetesVersion); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestShellOnLocalEnvironmentStateDir runs the command with env(1) as the
// shell: every KUBECONFIG entry exists, and variables inherited from
// another lab's shell are gone.
func TestShellOnLocalEnvironmentStateDir(t *testing.T) {
	envBin, err := exec.LookPath("env")
	if err != nil {
		t.Fatalf("no env(1) to stand in for the shell: %v", err)
	}
	d := writeLocalEnvState(t, []byte(kubeconfigYAML))
	t.Setenv("SHELL", envBin)
	t.Setenv("KUBECONFIG_MANAGEMENT", "/elsewhere/management.yaml")
	t.Setenv("KUBECONFIG_OTHER_TENANT", "/elsewhere/other.yaml")
	out, stderr, err := run(t, newShellCommand, "--state-dir", string(d))
	if err != nil {
		t.Fatalf("labctl shell: %v\n%s", err, stderr)
	}
	got := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			got[k] = v
		}
	}
	for _, k := range []string{"KUBECONFIG_MANAGEMENT", "KUBECONFIG_OTHER_TENANT"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s=%s in the shell", k, v)
		}
	}
	kc := strings.Split(got["KUBECONFIG"], string(os.PathListSeparator))
	if len(kc) != 2 {
		t.Errorf("KUBECONFIG = %q, want the two tenants' kubeconfigs", got["KUBECONFIG"])
	}
	for _, p := range kc {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("KUBECONFIG names %s: %v", p, err)
		}
	}
	if got["KUBECONFIG_TENANT_A"] == "" || got["LABCTL_LAB"] != "gpu-lab" {
		t.Errorf("tenant variables missing: %v", got)
	}
	if !strings.Contains(stderr, "labctl testenv up --state-dir "+string(d)) {
		t.Errorf("the banner does not say the local environment must be running:\n%s", stderr)
	}
}
