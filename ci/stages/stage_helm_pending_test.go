package stages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/internal/helm"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// lockingHelm answers as helm v3.19.0 did on the recording
// (ci/internal/helm/testdata/pending-v3.19.0): a release whose pending
// revision is still recorded — its Secret in the tenant's kube-system —
// reports that status and refuses every upgrade with helm's message.
type lockingHelm struct {
	mu      sync.Mutex
	e       *Env
	status  map[string][]byte // tenant → recorded status JSON while pending
	record  map[string]string // tenant → the pending revision's Secret
	refusal string
	calls   map[string][]string // tenant → its calls' verbs, in order
}

func newLockingHelm(t *testing.T, e *Env, pending map[string]string) *lockingHelm {
	t.Helper()
	dir := "../internal/helm/testdata/pending-v3.19.0/"
	refusal, err := os.ReadFile(dir + "upgrade-install-on-pending-install.txt")
	if err != nil {
		t.Fatal(err)
	}
	h := &lockingHelm{e: e, status: map[string][]byte{}, record: map[string]string{},
		refusal: strings.SplitN(string(refusal), "\n", 2)[0], calls: map[string][]string{}}
	for tenant, file := range pending {
		b, err := os.ReadFile(dir + file)
		if err != nil {
			t.Fatal(err)
		}
		var st helm.Status
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		h.status[tenant] = b
		h.record[tenant] = fmt.Sprintf("sh.helm.release.v1.%s.v%d", st.Name, st.Version)
		if _, err := e.clients[tenant].Kube.CoreV1().Secrets(render.HAMiNamespace).Create(context.Background(), &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: h.record[tenant], Namespace: render.HAMiNamespace,
				Labels: map[string]string{"owner": "helm", "name": st.Name, "status": st.Info.Status}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func (h *lockingHelm) Run(ctx context.Context, kc string, args ...string) ([]byte, error) {
	tenant := strings.TrimSuffix(filepath.Base(kc), ".yaml")
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls[tenant] = append(h.calls[tenant], args[0])
	_, err := h.e.clients[tenant].Kube.CoreV1().Secrets(render.HAMiNamespace).Get(ctx, h.record[tenant], metav1.GetOptions{})
	pending := h.record[tenant] != "" && err == nil
	switch {
	case args[0] == "status" && pending:
		return h.status[tenant], nil
	case args[0] == "status":
		return nil, errors.New("Error: release: not found")
	case args[0] == "upgrade" && pending:
		return nil, errors.New(h.refusal)
	}
	return nil, nil
}

// TestHAMiStageEndsARevisionAnInterruptedUpLeftPending: a labctl up killed
// during helm's install or upgrade leaves the release pending, and helm
// refuses to upgrade it ("another operation … is in progress"); the next up
// deletes that revision's record and installs.
func TestHAMiStageEndsARevisionAnInterruptedUpLeftPending(t *testing.T) {
	e, _, _, _ := managementUp(t)
	e.clients = map[string]*Clients{}
	for _, tn := range e.Lab.Tenants {
		e.clients[tn.Name] = hamiTenant(t, e, tn.Name, 1)
	}
	h := newLockingHelm(t, e, map[string]string{"tenant-a": "status-pending-install.json", "tenant-b": "status-pending-upgrade.json"})
	if !strings.Contains(h.refusal, "another operation (install/upgrade/rollback) is in progress") {
		t.Fatalf("recorded refusal = %q", h.refusal)
	}
	e.Helm = h
	if _, err := (hamiStage{}).Run(context.Background(), e); err != nil {
		t.Fatalf("stage hami on releases left pending: %v", err)
	}
	for _, tn := range e.Lab.Tenants {
		// The first status is the stage's question whether the tenant's
		// HAMi is there (hamiStateOf); the second, helmInstall's.
		if got, want := h.calls[tn.Name], []string{"status", "status", "upgrade"}; !slices.Equal(got, want) {
			t.Errorf("%s: helm calls %q, want %q", tn.Name, got, want)
		}
		if _, err := e.clients[tn.Name].Kube.CoreV1().Secrets(render.HAMiNamespace).Get(context.Background(), h.record[tn.Name],
			metav1.GetOptions{}); err == nil {
			t.Errorf("%s: Secret %s still there", tn.Name, h.record[tn.Name])
		}
	}
}
