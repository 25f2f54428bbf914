package stages

import (
	"context"
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// TestHAMiStageInstallsOnlyIntoAnAddedTenant: a running lab with HAMi in
// both tenants grows by tenant-c; the stage installs HAMi into tenant-c
// alone, leaves the running tenants' releases as they are, and says so.
func TestHAMiStageInstallsOnlyIntoAnAddedTenant(t *testing.T) {
	e, _, _, _ := managementUp(t)
	h := &okHelm{}
	e.Helm = h
	e.clients = map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		e.clients[tn.Name] = hamiTenant(t, e, tn.Name, 1)
	}
	ctx := context.Background()
	if _, err := (hamiStage{}).Run(ctx, e); err != nil {
		t.Fatal(err)
	}
	if done, _, err := (hamiStage{}).Check(ctx, e); err != nil || !done {
		t.Fatalf("Check after the first Run = %v, %v; want done", done, err)
	}

	e.Lab.Tenants = append(e.Lab.Tenants, lab.Tenant{Name: "tenant-c", Workers: e.Lab.Tenants[1].Workers})
	e.clients["tenant-c"] = hamiTenant(t, e, "tenant-c", 1)
	if err := e.State.WriteKubeconfig("tenant-c", []byte("fake")); err != nil {
		t.Fatal(err)
	}
	h.calls = nil
	msg, err := (hamiStage{}).Run(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	var installs []string
	for _, c := range h.calls {
		if strings.Contains(c, "upgrade --install") {
			installs = append(installs, c)
		}
	}
	if len(installs) != 1 || !strings.HasPrefix(installs[0], "tenant-c.yaml: ") {
		t.Errorf("installs on the grown lab: %q, want tenant-c's alone", installs)
	}
	for _, want := range []string{"tenant-a: already there", "tenant-b: already there", "tenant-c: scheduler and webhook ready"} {
		if !strings.Contains(msg, want) {
			t.Errorf("summary %q lacks %q", msg, want)
		}
	}
}
