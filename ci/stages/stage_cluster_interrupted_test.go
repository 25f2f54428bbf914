package stages

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
)

// A labctl up killed while kind created the cluster (the rehearsal's
// cluster:KILL+25s) leaves a half-made cluster: the next up must see it as
// its own, delete it and create it again, and never build on it.
func TestClusterStageRedoesACreateKilledMidway(t *testing.T) {
	e, d, k, _ := testEnv(t)
	d.images[e.Lab.Versions.KindNodeImage] = true
	k.kubeconfig = kubeconfigFor(t, map[string]string{"kind-gpu-lab": "https://127.0.0.1:40000"}, "kind-gpu-lab")
	made, release := make(chan struct{}), make(chan struct{})
	k.onCreate = func() error {
		close(made)
		<-release
		return errors.New("killed") // never seen: this up is gone
	}
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		_, _ = clusterStage{}.Run(context.Background(), e)
	}()
	<-made
	first := d.containers[e.controlPlaneContainer()].ID
	rec := waitRecord(t, e, func(r owner.Record) bool { return r.KindNodes[e.controlPlaneContainer()] == first })
	if !rec.KindPending || rec.KindCluster != "gpu-lab" {
		t.Fatalf("record while kind runs = %+v, want the create pending with its node", rec)
	}

	// The next up, with the first one's kind still "running" (killed).
	done, _, err := clusterStage{}.Check(context.Background(), e)
	if err != nil || done {
		t.Fatalf("Check of a half-made cluster = %v, %v; want not done, no error", done, err)
	}
	if _, err := (clusterStage{}).Run(context.Background(), e); err != nil {
		t.Fatalf("second up: %v", err)
	}
	if want := []string{"create", "delete", "create"}; !slices.Equal(k.calls, want) {
		t.Errorf("kind calls %v, want %v (the half-made cluster deleted, then created again)", k.calls, want)
	}
	rec, _, _ = owner.Read(e.State)
	second := d.containers[e.controlPlaneContainer()].ID
	if rec.KindPending || rec.KindNodes[e.controlPlaneContainer()] != second || second == first {
		t.Errorf("record after the second up = %+v, want %s recorded and nothing pending", rec, owner.ShortID(second))
	}
	close(release)
	<-firstDone
}

// A create killed before it could record a node container leaves a cluster
// this state dir cannot prove its own: the refusal says so and how to go on.
func TestKindClusterOwnershipNamesAnInterruptedCreate(t *testing.T) {
	e, d, _, _ := testEnv(t)
	node := d.kindNode("gpu-lab")
	rec := owner.Record{ID: "abc", KindCluster: "gpu-lab", KindNodes: map[string]string{}, KindPending: true}
	_, err := owner.KindCluster(rec, true, e.State, "gpu-lab", []docker.Container{node})
	if !errors.Is(err, owner.ErrNotOwned) {
		t.Fatalf("err = %v, want owner.ErrNotOwned", err)
	}
	for _, want := range []string{"was creating a cluster of that name and was stopped", "kind delete cluster --name gpu-lab",
		"labctl up again"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
	rec.KindPending = false
	if _, err := owner.KindCluster(rec, true, e.State, "gpu-lab", []docker.Container{node}); err == nil ||
		strings.Contains(err.Error(), "was creating") {
		t.Errorf("without a pending create: %v, want the plain refusal", err)
	}
}

// waitRecord polls the owner record until ok accepts it (the create
// records its nodes from another goroutine).
func waitRecord(t *testing.T, e *Env, ok func(owner.Record) bool) owner.Record {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second) // only ends a broken test
	for {
		rec, _, err := owner.Read(e.State)
		if err == nil && ok(rec) {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("owner record never got there: %+v (%v)", rec, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
