package stages

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/docker/dockertest"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// TestDaemonManagementIPOnDualStackNetwork runs the env's management-node
// lookup against the real Docker daemon: a container named like kind's
// control-plane node on a dual-stack network must yield its IPv4 address,
// and Down must remove the containers this state dir labelled only.
func TestDaemonManagementIPOnDualStackNetwork(t *testing.T) {
	t.Parallel() // its network, container and image have names of their own
	c := dockertest.Daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	suffix := hex.EncodeToString(b)

	// A one-file image with a static program that sleeps (no image can be pulled here).
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
	img := "gpu-lab-test-stages-" + suffix + ":test"
	if err := c.Import(ctx, &buf, img, `CMD ["/tiny","sleep"]`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.RemoveImage(context.Background(), img) })

	network := "gpu-lab-test-kind-" + suffix
	v4 := "172.29." + strconv.Itoa(int(b[0])) + ".0/24"
	if err := c.CreateNetwork(ctx, docker.NetworkSpec{Name: network, Subnets: []string{"fc00:f853:" + suffix[:4] + ":e793::/64",
		v4}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.RemoveNetwork(context.Background(), network) })

	l := lab.Default()
	l.Name = "gpu-lab-test-" + suffix
	e := &Env{Lab: l, State: state.Dir(t.TempDir()), Docker: c, Kind: &fakeKind{}, Network: network}
	if err := e.State.Claim(state.RealLab); err != nil {
		t.Fatal(err)
	}
	cp := e.controlPlaneContainer()
	worker := l.Name + "-tenant-a-worker"
	other := "gpu-lab-test-other-" + suffix
	t.Cleanup(func() {
		for _, n := range []string{cp, worker, other} {
			_ = c.RemoveContainer(context.Background(), n)
		}
	})
	if _, err := c.RunContainer(ctx, docker.RunSpec{Name: cp, Image: img, Network: network}); err != nil {
		t.Fatal(err)
	}
	owner, err := e.ensureOwner()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.RunContainer(ctx, docker.RunSpec{Name: worker, Image: img, Network: network,
		Labels: ownedWorkerLabels(e, "tenant-a", owner.ID)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RunContainer(ctx, docker.RunSpec{Name: other, Image: img, Network: network}); err != nil {
		t.Fatal(err)
	}

	ip, err := e.managementIP(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, err := netip.ParseAddr(ip)
	if err != nil || !a.Is4() || !netip.MustParsePrefix(v4).Contains(a) {
		t.Fatalf("ManagementIP = %q, want an IPv4 address in %s", ip, v4)
	}
	opts, err := e.renderOptions(ctx)
	if err != nil || opts.ManagementAddress != ip {
		t.Fatalf("RenderOptions = %+v, %v", opts, err)
	}

	removed, err := Down(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != "container "+worker {
		t.Fatalf("Down removed %v, want only the labelled worker", removed)
	}
	for name, want := range map[string]bool{worker: false, cp: true, other: true} {
		if ok, _ := c.ContainerExists(ctx, name); ok != want {
			t.Errorf("after Down: container %s exists = %v, want %v", name, ok, want)
		}
	}
}
