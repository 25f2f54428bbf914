package hostdaemon

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/capfilter"
)

// dockerPrivileged is the capability mask Docker 20.10.24 gives a
// --privileged container: every capability up to CAP_AUDIT_READ (37);
// newer ones are left out (moby v20.10.24 oci/caps/utils.go:14-30).
const dockerPrivileged = uint64(1)<<38 - 1

// kindIPv6Subnet is the IPv6 subnet kind v0.33.0 makes for its network
// "kind" (pkg/cluster/internal/providers/docker/network_test.go:35), with
// `docker network create -d=bridge --ipv6 --subnet …` (network.go:149-158).
const kindIPv6Subnet = "fc00:f853:ccd:e793::/64"

// One scenario: start the daemon, run privileged containers and exec in
// them, use a dual-stack network as kind makes, stop, and find nothing left.
func TestPrivateDaemonRunsPrivilegedContainers(t *testing.T) {
	if os.Getenv(RehearsalEnv) != "1" {
		t.Skipf("skipping: set %s=1 to start a private Docker daemon (needs root, ip, nsenter, dockerd, containerd, runc)", RehearsalEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "daemon")
	netns := fmt.Sprintf("gpu-lab-it-%d", os.Getpid())
	l, err := Start(ctx, Options{Dir: dir, Netns: netns})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = Stop(context.Background(), StopOptions{Dir: dir, Netns: netns})
		}
	})
	docker := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, "docker", args...)
		cmd.Env = append(os.Environ(), "DOCKER_HOST="+l.DockerHost())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	img := probeImage(t, ctx, l)

	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	hostBnd, err := capfilter.ParseBounding(status)
	if err != nil {
		t.Fatal(err)
	}
	want := dockerPrivileged & hostBnd
	if got := capEff(t, docker("run", "--rm", "--privileged", img, "/probe", "caps")); got != want {
		t.Fatalf("docker run --privileged: CapEff %#x, want %#x (Docker's privileged set within the host's bounding set %#x)", got, want, hostBnd)
	}
	docker("run", "-d", "--privileged", "--name", "probe", img)
	if got := capEff(t, docker("exec", "probe", "/probe", "caps")); got != want {
		t.Fatalf("docker exec: CapEff %#x, want %#x", got, want)
	}

	docker("network", "create", "-d=bridge", "--ipv6", "--subnet", kindIPv6Subnet, "kindish")
	docker("run", "-d", "--name", "dual", "--net", "kindish", img)
	prefix := strings.TrimSuffix(kindIPv6Subnet, "/64") // "…::"
	if addrs := docker("exec", "dual", "/probe", "addrs"); !strings.Contains(addrs, prefix) {
		t.Fatalf("the container on the dual-stack network has no address in %s:\n%s", kindIPv6Subnet, addrs)
	}
	inNs, err := exec.CommandContext(ctx, "ip", "-n", netns, "-br", "addr").CombinedOutput()
	if err != nil {
		t.Fatalf("ip -n %s addr: %v\n%s", netns, err, inNs)
	}
	onHost, err := exec.CommandContext(ctx, "ip", "-br", "addr").CombinedOutput()
	if err != nil {
		t.Fatalf("ip addr: %v\n%s", err, onHost)
	}
	if !strings.Contains(string(inNs), prefix+"1/64") || strings.Contains(string(onHost), prefix) {
		t.Fatalf("the network's gateway %s1 must exist in namespace %s only;\nnamespace:\n%s\nhost:\n%s", prefix, netns, inNs, onHost)
	}
	if err := checkNoDefaultRoute(ctx, netns); err != nil {
		t.Fatal(err)
	}

	stopped = true
	if err := Stop(ctx, StopOptions{Dir: dir, Netns: netns}); err != nil {
		t.Fatal(err)
	}
	if err := Leftovers(l, netns); err != nil {
		t.Fatal(err)
	}
	mounts, err := os.ReadFile("/proc/mounts")
	if err != nil {
		t.Fatal(err)
	}
	if left := mountsUnder(mounts, dir); len(left) > 0 {
		t.Fatalf("mounts left: %v", left)
	}
	for _, p := range append([]string{dir, NetnsPath(netns)}, cgroupParentDirs(netns)...) {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is left (%v)", p, err)
		}
	}
}

// capEff reads the CapEff line of the probe's output.
func capEff(t *testing.T, out string) uint64 {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no CapEff in:\n%s", out)
	return 0
}

// probeImage builds testdata/probe as a static binary and imports it as an
// image of that one file (no registry is reachable).
func probeImage(t *testing.T, ctx context.Context, l Layout) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "probe")
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./testdata/probe")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build probe: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "probe", Mode: 0o755, Size: int64(len(data))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	ref := "gpu-lab-rehearsal-probe:test"
	cmd := exec.CommandContext(ctx, "docker", "import", "-c", `CMD ["/probe","sleep"]`, "-", ref)
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+l.DockerHost())
	cmd.Stdin = &buf
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("docker import: %v\n%s", err, out)
	}
	return ref
}
