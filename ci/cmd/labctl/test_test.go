package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

const kubeconfigYAML = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`

func TestTestTargetFromStateDir(t *testing.T) {
	d := state.Dir(t.TempDir())
	if err := d.WriteLab(lab.Default()); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteKubeconfig("tenant-a", []byte(kubeconfigYAML)); err != nil {
		t.Fatal(err)
	}
	_, _, _, err := testTarget(testFlags{stateDir: string(d)})
	if err == nil || !strings.Contains(err.Error(), "tenant tenant-b: kubeconfig") || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("err = %v", err)
	}
	if err := d.WriteKubeconfig("tenant-b", []byte(kubeconfigYAML)); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteBackend("kind+kamaji+hami"); err != nil {
		t.Fatal(err)
	}
	l, tenants, backend, err := testTarget(testFlags{stateDir: string(d)})
	if err != nil {
		t.Fatal(err)
	}
	if l.Name != "gpu-lab" || len(tenants) != 2 || tenants["tenant-b"].Host != "https://127.0.0.1:1" || backend != "kind+kamaji+hami" {
		t.Errorf("got %s %v %q", l.Name, tenants, backend)
	}
}

func TestTestTargetKubeconfigFlags(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.yaml")
	if err := os.WriteFile(p, []byte(kubeconfigYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	_, tenants, backend, err := testTarget(testFlags{kubeconfigs: []string{"tenant-a=" + p, "tenant-b=" + p}})
	if err != nil || len(tenants) != 2 || backend != "existing platform" {
		t.Fatalf("got %v %q %v", tenants, backend, err)
	}
	if _, _, _, err := testTarget(testFlags{kubeconfigs: []string{p}}); err == nil || !strings.Contains(err.Error(), "want TENANT=PATH") {
		t.Fatalf("err = %v", err)
	}
}

func TestTestList(t *testing.T) {
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"test", "--list"})
	defer root.SetArgs(nil)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"TC-01", "TC-08", "TC-16"} {
		if !strings.Contains(out.String(), id) {
			t.Errorf("--list lacks %s:\n%s", id, out.String())
		}
	}
}
