package state

import (
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func TestRoundTrip(t *testing.T) {
	d := Dir(t.TempDir())
	if err := d.Claim(RealLab); err != nil {
		t.Fatal(err)
	}
	if got := d.ServerVersion(); got != "" {
		t.Errorf("empty dir: server version %q, want none", got)
	}
	if _, err := d.ReadLab(); err == nil {
		t.Error("empty dir: ReadLab succeeded, want an error telling to run labctl up")
	}
	if err := d.WriteLab(lab.Default()); err != nil {
		t.Fatal(err)
	}
	l, err := d.ReadLab()
	if err != nil {
		t.Fatal(err)
	}
	if l.Tenants[0].Workers[0].Cards()[0].MemoryMB != 81920 {
		t.Errorf("lab did not round-trip: %+v", l.Tenants[0])
	}
	for _, step := range []struct {
		write func() error
		read  func() string
		want  string
	}{
		{func() error { return d.WriteBackend("local test environment") }, d.Backend, "local test environment"},
		{func() error { return d.WriteServerVersion("v1.36.3") }, d.ServerVersion, "v1.36.3"},
	} {
		if err := step.write(); err != nil {
			t.Fatal(err)
		}
		if got := step.read(); got != step.want {
			t.Errorf("read %q, want %q", got, step.want)
		}
	}
	recs := []StageRecord{{Name: "cluster", Status: "done"}}
	if err := d.WriteStages(recs); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadStages()
	if err != nil || len(got) != 1 || got[0].Name != "cluster" {
		t.Errorf("stages = %+v, %v", got, err)
	}
	if d.Kind() != RealLab {
		t.Errorf("kind %q, want %q", d.Kind(), RealLab)
	}
}

// The management kubeconfig's name is the tenant name ci/lab reserves for
// it (a tenant of that name would overwrite it); the .dagger module reads
// this package's literal, so the two are held equal here.
func TestManagementNameIsTheReservedTenantName(t *testing.T) {
	if ManagementName != lab.ManagementName {
		t.Fatalf("state.ManagementName %q, lab.ManagementName %q: one name", ManagementName, lab.ManagementName)
	}
}
