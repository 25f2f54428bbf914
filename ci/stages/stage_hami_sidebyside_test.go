package stages

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// barrierHelm holds each tenant's HAMi install until every tenant's has
// begun: installed one after another, the first never sees the second and
// fails at failureBound.
type barrierHelm struct {
	okHelm
	b *barrier
}

func (h *barrierHelm) Run(ctx context.Context, kc string, args ...string) ([]byte, error) {
	if args[0] == "upgrade" {
		if err := h.b.wait(ctx, filepath.Base(kc)); err != nil {
			return nil, err
		}
	}
	return h.okHelm.Run(ctx, kc, args...)
}

// TestHAMiStageInstallsTheTenantsSideBySide: each tenant's GPU nodes and
// HAMi install run at the same time as the others' (on 2026-12-07's seed
// lab the two installs took 14 s each, one after the other).
func TestHAMiStageInstallsTheTenantsSideBySide(t *testing.T) {
	e, _, _, _ := managementUp(t)
	e.clients = map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		e.clients[tn.Name] = hamiTenant(t, e, tn.Name, 1)
	}
	h := &barrierHelm{b: newBarrier(len(e.Lab.Tenants))}
	e.Helm = h
	ctx, cancel := context.WithTimeout(context.Background(), failureBound)
	defer cancel()
	if _, err := (hamiStage{}).Run(ctx, e); err != nil {
		t.Fatalf("stage hami: %v (installs under way together: %v)", err, h.b.seen())
	}
	if got := h.b.seen(); len(got) != len(e.Lab.Tenants) {
		t.Errorf("installs under way together: %v, want one a tenant", got)
	}
	for _, tn := range e.Lab.Tenants {
		if !strings.Contains(strings.Join(h.calls, "\n"), tn.Name+".yaml: upgrade --install hami") {
			t.Errorf("no HAMi install in %s: %q", tn.Name, h.calls)
		}
	}
}
