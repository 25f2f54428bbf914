package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

func TestUpDryRunPrintsEveryStage(t *testing.T) {
	t.Setenv("DOCKER_HOST", "tcp://docker:2375")
	dir := t.TempDir()
	out, err := runRoot(t, "up", "--dry-run", "--state-dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"docker at docker", "== cluster", "== kamaji", "== tenants", "== workers", "== hami", "== gpus",
		"apiServerAddress: 0.0.0.0", "apiServerPort: 6443", "- docker", "server https://docker:6443"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q", want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("--dry-run wrote into the state dir: %v", entries)
	}
	out, err = runRoot(t, "up", "--dry-run", "--state-dir", dir, "--only", "workers")
	if err != nil || strings.Contains(out, "== cluster") || !strings.Contains(out, "== workers") {
		t.Errorf("--only workers --dry-run = %v\n%s", err, out)
	}
	if _, err := runRoot(t, "up", "--dry-run", "--only", "gpu"); err == nil || !strings.Contains(err.Error(), "unknown stage") {
		t.Errorf("--only gpu: err = %v", err)
	}
}

func TestStatusAndKubeconfigFromAStateDir(t *testing.T) {
	d := newStateDir(t, state.RealLab)
	if err := d.WriteLab(lab.Default()); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteStages([]state.StageRecord{{Name: "cluster", Status: "done", Started: time.Now(), Duration: time.Minute,
		Message: "kind cluster gpu-lab created"}}); err != nil {
		t.Fatal(err)
	}
	// A lab with stages not run is not healthy: status prints, then exits 1.
	out, err := runRoot(t, "status", "--state-dir", string(d))
	if ee, ok := err.(exitError); !ok || ee.code != 1 {
		t.Fatalf("status of a half-built lab: %v, want exit code 1", err)
	}
	for _, want := range []string{"stage  cluster  done", "stage  gpus     not run", "tenant tenant-a", "no kubeconfig"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if _, err := runRoot(t, "kubeconfig", "tenant-z", "--state-dir", string(d)); err == nil ||
		!strings.Contains(err.Error(), "no tenant \"tenant-z\"") {
		t.Errorf("unknown tenant: err = %v", err)
	}
	if err := d.WriteKubeconfig("tenant-a", []byte("apiVersion: v1\nkind: Config\n")); err != nil {
		t.Fatal(err)
	}
	out, err = runRoot(t, "kubeconfig", "tenant-a", "--state-dir", string(d))
	if err != nil || out != "apiVersion: v1\nkind: Config\n" {
		t.Errorf("kubeconfig tenant-a = %q, %v", out, err)
	}
	out, err = runRoot(t, "kubeconfig", "tenant-a", "--path", "--state-dir", string(d))
	if err != nil || strings.TrimSpace(out) != filepath.Join(string(d), "kubeconfigs", "tenant-a.yaml") {
		t.Errorf("kubeconfig --path = %q, %v", out, err)
	}
}
