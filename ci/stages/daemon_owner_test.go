package stages

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/docker/dockertest"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// TestDaemonOwnershipOfClusterAndWorkers runs the ownership decisions
// against the real Docker daemon and kind's real docker provider. One state
// dir makes a lab (a kind-labelled "management node" and a worker); a
// second state dir with the same lab name — another checkout, or `name:
// kind` against the user's own cluster — sees kind's name lookup answer
// yes, yet neither adopts, execs into, nor deletes anything; the first
// state dir's Down removes exactly its own objects with kind's real delete.
// kind's node image cannot be pulled here, so the node container is a
// sleeping one-file container carrying the labels kind v0.33.0 puts on its
// nodes (pkg/cluster/internal/providers/docker/provision.go:140,220).
func TestDaemonOwnershipOfClusterAndWorkers(t *testing.T) {
	t.Parallel() // its containers and image have names of their own
	c := dockertest.Daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	suffix := strings.TrimPrefix(dockertest.UniqueName(""), "-")
	img := sleeperImage(ctx, t, c, "gpu-lab-test-own-"+suffix+":test")

	l := lab.Default()
	l.Name = "gpu-lab-test-own-" + suffix
	kp := NewKindProvider(time.Minute, nil)
	mine := &Env{Lab: l, State: state.Dir(t.TempDir()), Docker: c, Kind: nodeMaker{kp, c, img}}
	if err := mine.State.Claim(state.RealLab); err != nil {
		t.Fatal(err)
	}
	twinLab := *l
	spy := &dockerSpy{CLI: c}
	twin := &Env{Lab: &twinLab, State: state.Dir(t.TempDir()), Docker: spy, Kind: kp}
	if err := twin.State.Claim(state.RealLab); err != nil {
		t.Fatal(err)
	}
	cp, worker := mine.controlPlaneContainer(), l.NodeName("tenant-a", "worker")
	t.Cleanup(func() {
		for _, n := range []string{cp, worker} {
			_ = c.RemoveContainer(context.Background(), n)
		}
	})

	// The lab of the first state dir.
	if err := mine.createOwnedKindCluster(ctx, &kind.Cluster{Name: l.Name, Nodes: []kind.Node{{Role: kind.ControlPlaneRole}}}); err != nil {
		t.Fatal(err)
	}
	rec, ok, err := owner.Read(mine.State)
	if err != nil || !ok {
		t.Fatalf("owner record: %v, %v", ok, err)
	}
	if _, err := c.RunContainer(ctx, docker.RunSpec{Name: worker, Image: img,
		Labels: ownedWorkerLabels(mine, "tenant-a", rec.ID)}); err != nil {
		t.Fatal(err)
	}
	if owned, err := mine.ownedKindCluster(ctx); !owned || err != nil {
		t.Fatalf("the state dir that made the cluster: owned = %v, %v", owned, err)
	}

	// kind's own lookup finds the cluster by name, so a name alone cannot
	// tell which state dir made it.
	if ok, err := kp.Exists(ctx, l.Name); !ok || err != nil {
		t.Fatalf("kind get clusters does not list %s (%v): the test's node container is not what kind looks for", l.Name, err)
	}
	// The second state dir refuses everything, naming the object.
	if owned, err := twin.ownedKindCluster(ctx); owned || !errors.Is(err, owner.ErrNotOwned) {
		t.Errorf("second state dir: owned = %v, err = %v; want ErrNotOwned", owned, err)
	}
	if _, _, err := (clusterStage{}).Check(ctx, twin); !errors.Is(err, owner.ErrNotOwned) ||
		!strings.Contains(err.Error(), "kind cluster "+l.Name) {
		t.Errorf("second state dir: cluster Check = %v; want a refusal naming the cluster", err)
	}
	if _, err := Down(ctx, twin); !errors.Is(err, owner.ErrNotOwned) {
		t.Errorf("second state dir: Down = %v; want the cluster refused", err)
	}
	if err := startWorker(ctx, twin, "0123456789abcdef0123456789abcdef", "tenant-a", worker, img, docker.KindNodeHost{}); !errors.Is(err,
		owner.ErrNotOwned) || !strings.Contains(err.Error(), "container "+worker) {
		t.Errorf("second state dir: startWorker = %v; want a refusal naming %s", err, worker)
	}
	if calls := spy.touched(); len(calls) != 0 {
		t.Errorf("second state dir ran %q", calls)
	}
	for _, n := range []string{cp, worker} {
		if got, err := c.InspectContainer(ctx, n); err != nil || !got.State.Running {
			t.Errorf("after the second state dir: container %s running = %v, %v", n, got.State.Running, err)
		}
	}

	// The first state dir's Down removes its own, with kind's real delete.
	removed, err := Down(ctx, mine)
	if err != nil {
		t.Fatal(err)
	}
	// kind wrote no kubeconfig here (the test's node maker), so of the state
	// only the kubeconfigs directory reserved for it is left to remove.
	if want := []string{"container " + worker, "kind cluster " + l.Name,
		filepath.Dir(mine.State.ManagementKubeconfig())}; !slices.Equal(removed, want) {
		t.Errorf("Down removed %v, want %v", removed, want)
	}
	for _, n := range []string{cp, worker} {
		if ok, err := c.ContainerExists(ctx, n); ok || err != nil {
			t.Errorf("after Down: container %s exists = %v, %v", n, ok, err)
		}
	}
}

// nodeMaker is kind with Create replaced: it starts the cluster's
// control-plane container labelled as kind v0.33.0 labels its nodes
// (io.x-k8s.kind.cluster, io.x-k8s.kind.role: provision.go:140,220), from an
// image that only sleeps. Everything else is kind's real docker provider.
type nodeMaker struct {
	*KindProvider
	c   docker.CLI
	img string
}

func (k nodeMaker) Create(ctx context.Context, cfg *kind.Cluster, _ string) error {
	_, err := k.c.RunContainer(ctx, docker.RunSpec{Name: cfg.Name + "-control-plane", Image: k.img,
		Labels: map[string]string{owner.KindClusterLabel: cfg.Name, "io.x-k8s.kind.role": "control-plane"}})
	return err
}

// dockerSpy is the real CLI, recording every exec and removal.
type dockerSpy struct {
	docker.CLI
	mu    sync.Mutex
	calls []string
}

func (s *dockerSpy) Exec(ctx context.Context, name string, stdin io.Reader, cmd ...string) ([]byte, error) {
	s.mu.Lock()
	s.calls = append(s.calls, "exec "+name+" "+strings.Join(cmd, " "))
	s.mu.Unlock()
	return s.CLI.Exec(ctx, name, stdin, cmd...)
}

func (s *dockerSpy) RemoveContainer(ctx context.Context, name string) error {
	s.mu.Lock()
	s.calls = append(s.calls, "rm "+name)
	s.mu.Unlock()
	return s.CLI.RemoveContainer(ctx, name)
}

func (s *dockerSpy) touched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// sleeperImage imports a one-file image whose static program sleeps (no
// image can be pulled here) and removes it when the test ends.
func sleeperImage(ctx context.Context, t *testing.T, c docker.CLI, ref string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tiny")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "../docker/testdata/tiny")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build tiny: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "tiny", Mode: 0o755, Size: int64(len(data))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Import(ctx, &buf, ref, `CMD ["/tiny","sleep"]`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.RemoveImage(context.Background(), ref) })
	return ref
}
