package stages

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// lockingHelm answers as helm v3.19.0 did on the recording
// (ci/internal/helm/testdata/pending-v3.19.0): a release left pending
// reports that status, refuses every upgrade with helm's message, and is
// released by uninstall (pending-install) or rollback (pending-upgrade).
type lockingHelm struct {
	mu      sync.Mutex
	status  map[string][]byte // tenant → recorded status JSON while pending
	refusal string
	calls   map[string][]string // tenant → its calls' verbs, in order
}

func newLockingHelm(t *testing.T, pending map[string]string) *lockingHelm {
	t.Helper()
	dir := "../internal/helm/testdata/pending-v3.19.0/"
	refusal, err := os.ReadFile(dir + "upgrade-install-on-pending-install.txt")
	if err != nil {
		t.Fatal(err)
	}
	h := &lockingHelm{status: map[string][]byte{}, refusal: strings.SplitN(string(refusal), "\n", 2)[0], calls: map[string][]string{}}
	for tenant, file := range pending {
		b, err := os.ReadFile(dir + file)
		if err != nil {
			t.Fatal(err)
		}
		h.status[tenant] = b
	}
	return h
}

func (h *lockingHelm) Run(_ context.Context, kc string, args ...string) ([]byte, error) {
	tenant := strings.TrimSuffix(filepath.Base(kc), ".yaml")
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls[tenant] = append(h.calls[tenant], args[0])
	pending, ok := h.status[tenant]
	switch args[0] {
	case "status":
		if ok {
			return pending, nil
		}
		return nil, errors.New("Error: release: not found")
	case "upgrade":
		if ok {
			return nil, errors.New(h.refusal)
		}
	case "uninstall", "rollback":
		delete(h.status, tenant)
	}
	return nil, nil
}

// TestHAMiStageEndsAReleaseAnInterruptedUpLeftPending: a labctl up killed
// during helm's install or upgrade leaves the release pending, and helm
// refuses to upgrade it ("another operation … is in progress"); the next up
// uninstalls a pending install and rolls back a pending upgrade, then
// installs.
func TestHAMiStageEndsAReleaseAnInterruptedUpLeftPending(t *testing.T) {
	e, _, _, _ := managementUp(t)
	e.clients = map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		e.clients[tn.Name] = hamiTenant(t, e, tn.Name, 1)
	}
	h := newLockingHelm(t, map[string]string{"tenant-a": "status-pending-install.json", "tenant-b": "status-pending-upgrade.json"})
	if !strings.Contains(h.refusal, "another operation (install/upgrade/rollback) is in progress") {
		t.Fatalf("recorded refusal = %q", h.refusal)
	}
	e.Helm = h
	if _, err := (hamiStage{}).Run(context.Background(), e); err != nil {
		t.Fatalf("stage hami on releases left pending: %v", err)
	}
	for tenant, want := range map[string][]string{
		"tenant-a": {"status", "uninstall", "upgrade"},
		"tenant-b": {"status", "rollback", "upgrade"},
	} {
		if got := h.calls[tenant]; !slices.Equal(got, want) {
			t.Errorf("%s: helm calls %q, want %q", tenant, got, want)
		}
	}
}
