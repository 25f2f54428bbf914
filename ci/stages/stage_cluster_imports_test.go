package stages

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/images"
)

// clusterToCreate is the seed lab with a bundle, no cluster yet, and node
// containers whose containerd is active; the fake kind and the node stores.
func clusterToCreate(t *testing.T) (*Env, *fakeKind, *nodeStores) {
	t.Helper()
	e, d, k, _ := testEnv(t)
	n := withBundle(t, e, d)
	d.execOut = func(container string, cmd []string) ([]byte, error) {
		if len(cmd) > 1 && cmd[0] == "systemctl" {
			return []byte("active\n"), nil
		}
		return n.exec(container, cmd)
	}
	k.kubeconfig = kubeconfigFor(t, map[string]string{"kind-gpu-lab": "https://127.0.0.1:40000"}, "kind-gpu-lab")
	return e, k, n
}

// TestClusterStageImportsTheLaterStagesImagesBesideTheCreate: the kamaji
// and tenants stages' management images go into the node while kind's
// create still runs (the create is held until they are there), and those
// stages then import nothing.
func TestClusterStageImportsTheLaterStagesImagesBesideTheCreate(t *testing.T) {
	e, k, n := clusterToCreate(t)
	refs := e.laterManagementImages()
	if len(refs) < 5 {
		t.Fatalf("later management images %v: want cert-manager's, Kamaji's, etcd's and the tenants' at least", refs)
	}
	node := e.controlPlaneContainer()
	k.onCreate = func() error {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			n.mu.Lock()
			got := len(n.events)
			n.mu.Unlock()
			if got >= len(refs) {
				return nil
			}
		}
		return fmt.Errorf("the images were not imported while the create ran")
	}
	ran := &stepRecorder{}
	e.Steps = ran
	if _, err := (clusterStage{}).Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	ran.didWhatThePlanSays(t, newClusterRun(e).steps)
	for _, ref := range refs {
		if !slices.Contains(n.events, "import "+node+" "+ref) {
			t.Errorf("%s not imported into %s: %q", ref, node, n.events)
		}
	}
	before := len(n.events)
	for _, i := range e.Preload.Images {
		if i.Place == images.Management && (i.Stage == stageKamaji || i.Stage == stageTenants) {
			if err := e.preloadStage(context.Background(), i.Stage, i.Release, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	if again := n.events[before:]; len(again) > 0 {
		t.Errorf("the later stages imported again: %q", again)
	}
}

// TestClusterStageLeavesAFailedEarlyImportToTheLaterStages: an import that
// fails beside the create is logged and is not the cluster stage's
// failure; a cluster that is there gets no import.
func TestClusterStageLeavesAFailedEarlyImportToTheLaterStages(t *testing.T) {
	e, _, n := clusterToCreate(t)
	var log bytes.Buffer
	e.Log = slog.New(slog.NewTextHandler(&log, nil))
	d := e.Docker.(*fakeDocker)
	ok := d.execOut
	d.execOut = func(container string, cmd []string) ([]byte, error) {
		if strings.HasPrefix(strings.Join(cmd, " "), "ctr --namespace=k8s.io images import") {
			return nil, fmt.Errorf("ctr: failed to import")
		}
		return ok(container, cmd)
	}
	if _, err := (clusterStage{}).Run(context.Background(), e); err != nil {
		t.Fatalf("a failed early import failed the cluster stage: %v", err)
	}
	if !strings.Contains(log.String(), "left the later stages' images to them") || !strings.Contains(log.String(), "ctr: failed to import") {
		t.Errorf("log lacks the early import's failure:\n%s", log.String())
	}
	d.execOut = ok
	if _, err := (clusterStage{}).Run(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if len(n.events) > 0 {
		t.Errorf("imports into a cluster that was there: %q", n.events)
	}
}
