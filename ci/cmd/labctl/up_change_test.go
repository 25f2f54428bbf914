package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// TestUpDryRunOfAChangedLab: `up --dry-run -f` on a running lab says the
// change and, for what goes, the removal before the stages; a tenant added
// on a remote daemon is refused naming it, a worker added is not.
func TestUpDryRunOfAChangedLab(t *testing.T) {
	t.Setenv("DOCKER_HOST", "tcp://docker:2375")
	d := newStateDir(t, state.RealLab)
	if err := d.WriteLab(lab.Default()); err != nil {
		t.Fatal(err)
	}
	file := func(change func(l *lab.Lab)) string {
		l := lab.Default()
		change(l)
		return labFileOf(t, l)
	}
	shrunk := file(func(l *lab.Lab) { l.Tenants = l.Tenants[:1] })
	out, err := runRoot(t, "up", "--dry-run", "-f", shrunk, "--state-dir", string(d))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the lab file removes tenant(s) tenant-b", "before the stages, what the lab file no longer has goes:",
		"docker rm -f gpu-lab-tenant-b-worker", "delete TenantControlPlane tenant-b/tenant-b", "== cluster"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run of the shrunk lab lacks %q:\n%s", want, out)
		}
	}
	worker := file(func(l *lab.Lab) {
		l.Tenants[1].Workers = append(l.Tenants[1].Workers, lab.Worker{Name: "worker2", GPUs: l.Tenants[1].Workers[0].GPUs})
	})
	if out, err := runRoot(t, "up", "--dry-run", "-f", worker, "--state-dir", string(d)); err != nil ||
		!strings.Contains(out, "the lab file adds worker(s) tenant-b/worker2") || strings.Contains(out, "before the stages") {
		t.Errorf("dry run with a worker added on a remote daemon: %v\n%s", err, out)
	}
	tenant := file(func(l *lab.Lab) {
		l.Tenants = append(l.Tenants, lab.Tenant{Name: "tenant-c", Workers: l.Tenants[1].Workers})
	})
	if _, err := runRoot(t, "up", "--dry-run", "-f", tenant, "--state-dir", string(d)); err == nil ||
		!strings.Contains(err.Error(), "lab file adds tenant(s) tenant-c to lab gpu-lab") {
		t.Errorf("a tenant added on a remote daemon: err %v, want the refusal naming it", err)
	}
	if recorded, err := d.ReadLab(); err != nil || len(recorded.Tenants) != 2 {
		t.Errorf("a dry run changed the recorded lab: %v, %v", recorded, err)
	}
}

// labFileOf writes l as a lab file, as labctl records a resolved lab, and
// returns its path.
func labFileOf(t *testing.T, l *lab.Lab) string {
	t.Helper()
	d := newStateDir(t, state.RealLab)
	if err := d.WriteLab(l); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(d.LabPath())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "lab.yaml")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
