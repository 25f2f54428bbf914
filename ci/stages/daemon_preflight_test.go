package stages

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/docker/dockertest"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// TestDaemonPreflightOnThisHost runs preflight against the real daemon,
// with a one-file image standing in for the kind node image (none can be
// pulled here). Whether the daemon starts privileged containers is asked of
// docker first; preflight must stop, naming the fix, exactly when it does
// not — this machine's Docker 20.10 refuses them ("unable to apply caps")
// — and it reads the host's cgroup version into Reach either way.
func TestDaemonPreflightOnThisHost(t *testing.T) {
	t.Parallel() // its image has a name of its own
	c := dockertest.Daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	bin := filepath.Join(t.TempDir(), "tiny")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "../docker/testdata/tiny")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build tiny: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(bin)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "tiny", Mode: 0o755, Size: int64(len(data))})
	tw.Write(data)
	tw.Close()
	img := "gpu-lab-test-preflight-" + hex.EncodeToString(b) + ":test"
	if err := c.Import(ctx, &buf, img, `CMD ["/tiny","sleep"]`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.RemoveImage(context.Background(), img) })

	_, rawErr := c.Run(ctx, "run", "--rm", "--pull", "never", "--privileged", img, "/tiny", "echo", "ok")
	refused := rawErr != nil
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}

	l := lab.Default()
	l.Versions.KindNodeImage = img
	e := &Env{Lab: l, State: state.Dir(t.TempDir()), Docker: c, Kind: &fakeKind{}, Network: "kind", Timeouts: DefaultTimeouts()}
	_, err = Preflight(ctx, e, stageCluster)
	if err == nil {
		t.Fatal("preflight passed with an image that has no shell for the probe")
	}
	if errors.Is(err, docker.ErrPrivilegedRefused) != refused {
		t.Fatalf("preflight: %v; the daemon refuses privileged containers = %v", err, refused)
	}
	if refused && (!strings.HasPrefix(err.Error(), "preflight: ") || !strings.Contains(err.Error(), "privileged")) {
		t.Errorf("preflight error %q: want it to name privileged containers and the fix", err)
	}
	if e.Reach.CgroupV1 != (info.CgroupVersion == "1") {
		t.Errorf("Reach.CgroupV1 = %v, docker info CgroupVersion %q", e.Reach.CgroupV1, info.CgroupVersion)
	}
	t.Logf("preflight on this host: %v", err)
}
