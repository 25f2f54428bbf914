package stages

import (
	"context"
	"strings"
	"testing"
	"time"

	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	kindexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/gpu-lab/gpu-lab/ci/docker/dockertest"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// TestDaemonBindHintForAnAddressTheHostLacks: with DOCKER_HOST naming the
// Docker host by an address it does not have (192.0.2.1, TEST-NET-1 of RFC
// 5737: no host's), publishing a port there fails on the real daemon; the
// cluster stage's error carries the daemon's own words (kind's error names
// only the command) and says how to publish on all of the host's
// addresses. Nothing is sent to that address: only the local daemon is
// asked to listen on it.
func TestDaemonBindHintForAnAddressTheHostLacks(t *testing.T) {
	t.Parallel() // its container and image have names of their own
	c := dockertest.Daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	suffix := strings.TrimPrefix(dockertest.UniqueName(""), "-")
	img := sleeperImage(ctx, t, c, "gpu-lab-test-bind-"+suffix+":test")
	l := lab.Default()
	l.Name = "gpu-lab-test-bind-" + suffix
	reach, err := ReachFor("tcp://192.0.2.1:2375")
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{Lab: l, State: state.Dir(t.TempDir()), Docker: c, Kind: publisher{img: img}, Reach: reach}
	if err := e.State.Claim(state.RealLab); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.RemoveContainer(context.Background(), e.controlPlaneContainer()) })

	// The kind config the cluster stage renders for this daemon.
	cfg, err := render.KindConfig(l, reach.renderOptions(render.PlaceholderManagementAddress))
	if err != nil {
		t.Fatal(err)
	}
	err = e.createOwnedKindCluster(ctx, cfg)
	if err == nil {
		t.Fatal("publishing on 192.0.2.1 succeeded: the daemon's host has that address, pick another for this test")
	}
	t.Logf("the daemon refused: %v", err)
	for _, part := range []string{"listen tcp4 192.0.2.1:", errAddressNotOwned, "gives the Docker host as 192.0.2.1",
		"set DOCKER_HOST with the host's name"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q lacks %q", err, part)
		}
	}
	if rec, _, err := owner.Read(e.State); err != nil || len(rec.KindNodes) != 0 {
		t.Errorf("a failed create was recorded: %+v, %v", rec, err)
	}
}

// publisher is kind with Create replaced: it publishes a port on the
// address kind would publish the API server on (the cluster's
// apiServerAddress, provision.go:59-61,104-109) with `docker run`, run
// through kind's exec as kind's docker provider runs it (provision.go:440),
// and reports the failure as KindProvider.Create does.
type publisher struct {
	*KindProvider
	img string
}

func (p publisher) Create(_ context.Context, cfg *kind.Cluster, _ string) error {
	err := kindexec.Command("docker", "run", "--detach", "--name", cfg.Name+"-control-plane",
		"--publish", cfg.Networking.APIServerAddress+"::6443", p.img).Run()
	if err != nil {
		return kindCreateError(cfg.Name, err)
	}
	return nil
}

var _ Kind = publisher{}
