package nodeadapt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	toml "github.com/pelletier/go-toml"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
)

// NodeRootfsEnv names a Debian bookworm root filesystem with systemd,
// containerd and runc, for the node test: make one with
//
//	debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,containerd,runc,iproute2,procps,ca-certificates bookworm DIR
//
// (kept out of the repository, e.g. under ~/.cache/gpu-lab/rehearsal/).
const NodeRootfsEnv = "GPU_LAB_REHEARSAL_NODE_ROOTFS"

// kindNodeArgs are the `docker run` flags kind v0.33.0 gives a node
// (pkg/cluster/internal/providers/docker/provision.go:137-175 commonArgs,
// :226-237 runArgsForNode) and its base image's container=docker and
// stop signal (images/base/Dockerfile:242,245). Left out: the
// /lib/modules bind mount (provision.go:239), which this machine does not
// have and Docker would create on the host; and kind's entrypoint, which is
// kind's file — /sbin/init runs directly.
var kindNodeArgs = []string{
	"--detach", "--tty", "--restart=on-failure:1", "--init=false", "--cgroupns=private",
	"--privileged", "--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
	"--tmpfs", "/tmp", "--tmpfs", "/run", "--volume", "/var",
	"-e", "container=docker", "--stop-signal", "SIGRTMIN+3",
}

// One scenario: a kind-style node on the private daemon runs pods through
// its containerd's CRI only with the adapted containerd config.
func TestNodeRunsPodsWithAdaptedContainerd(t *testing.T) {
	if os.Getenv(hostdaemon.RehearsalEnv) != "1" {
		t.Skipf("skipping: set %s=1 and %s to run a kind-style node on a private Docker daemon", hostdaemon.RehearsalEnv, NodeRootfsEnv)
	}
	rootfs := os.Getenv(NodeRootfsEnv)
	if fi, err := os.Stat(filepath.Join(rootfs, "usr/bin/containerd")); rootfs == "" || err != nil || fi.IsDir() {
		t.Skipf("skipping: %s=%q is not a root filesystem with containerd (see the constant's comment for how to make one)",
			NodeRootfsEnv, rootfs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "daemon")
	netns := fmt.Sprintf("gpu-lab-node-it-%d", os.Getpid())
	l, err := hostdaemon.Start(ctx, hostdaemon.Options{Dir: dir, Netns: netns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := hostdaemon.Stop(context.Background(), hostdaemon.StopOptions{Dir: dir, Netns: netns}); err != nil {
			t.Error(err)
		}
	})
	d := dockerCLI{t: t, ctx: ctx, host: l.DockerHost()}
	bins := buildBinaries(t, ctx)

	d.pipe(exec.CommandContext(ctx, "tar", "-C", rootfs, "-c", "."), "import", "-", "rehearsal-node:test")
	d.pipe(exec.CommandContext(ctx, "tar", "-C", filepath.Dir(bins.probe), "-c", "probe"),
		"import", "-c", `CMD ["/probe","sleep"]`, "-", "registry.k8s.io/pause:3.6")
	pauseTar := filepath.Join(t.TempDir(), "pause.tar")
	d.run("save", "-o", pauseTar, "registry.k8s.io/pause:3.6")
	// kind v0.33.0 network.go:149-158, subnet of its network "kind" (network_test.go:35)
	d.run("network", "create", "-d=bridge", "-o", "com.docker.network.bridge.enable_ip_masquerade=true", "--ipv6", "--subnet",
		"fc00:f853:ccd:e793::/64", "kind")
	d.run(append(append([]string{"run", "--net", "kind", "--hostname", "node", "--name", "node"}, kindNodeArgs...), "rehearsal-node:test",
		"/sbin/init")...)
	d.waitForConsole("node", "Multi-User System")
	state, _ := d.exec("node", "systemctl", "is-system-running", "--wait")
	t.Logf("node systemd: %s (degraded is fine: units a container cannot run)", strings.TrimSpace(state))
	if out := d.mustExec("node", "systemctl", "is-active", "containerd"); strings.TrimSpace(out) != "active" {
		t.Fatalf("the node's containerd is %s", out)
	}
	for _, f := range [][2]string{{bins.probe, "/usr/local/bin/probe"}, {bins.criprobe, "/usr/local/bin/criprobe"},
		{bins.wrapper, WrapperPath}, {pauseTar, "/root/pause.tar"}} {
		d.run("cp", f[0], "node:"+f[1])
	}
	d.mustExec("node", "ctr", "-n", "k8s.io", "image", "import", "/root/pause.tar")
	stock := d.mustExec("node", "cat", "/etc/containerd/config.toml")

	useConfig := func(cfg string) {
		t.Helper()
		p := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		d.run("cp", p, "node:/etc/containerd/config.toml")
		d.mustExec("node", "systemctl", "restart", "containerd")
	}
	criprobe := func(mode string) (string, bool) {
		out, err := d.exec("node", "criprobe", mode)
		return out, err == nil
	}

	// Debian's own config: every sandbox fails, privileged or not.
	for _, mode := range []string{"plain", "privileged"} {
		out, ok := criprobe(mode)
		if ok || !strings.Contains(out, "can't get final child's PID") {
			t.Fatalf("stock config, %s pod: want the sandbox to fail with \"can't get final child's PID\", got (ok=%v):\n%s", mode, ok, out)
		}
	}

	patched, err := PatchContainerdConfig([]byte(stock))
	if err != nil {
		t.Fatal(err)
	}
	// restrict_oom_score_adj alone: pods start, but not one adding SYS_RESOURCE.
	tree, err := toml.LoadBytes(patched)
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.DeletePath(binaryNamePath(v2)); err != nil {
		t.Fatal(err)
	}
	restrictOnly, err := tree.ToTomlString()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(restrictOnly, "BinaryName") {
		t.Fatalf("could not take BinaryName out:\n%s", restrictOnly)
	}
	useConfig(restrictOnly)
	if out, ok := criprobe("plain"); !ok {
		t.Fatalf("restrict_oom_score_adj, plain pod failed:\n%s", out)
	}
	if out, ok := criprobe("addcap"); ok || !strings.Contains(out, "unable to apply caps") {
		t.Fatalf("restrict_oom_score_adj without the wrapper, pod adding SYS_RESOURCE: want \"unable to apply caps\", got (ok=%v):\n%s", ok, out)
	}

	// The full adaptation: every kind of pod runs.
	useConfig(string(patched))
	containerdCaps := d.mustExec("node", "sh", "-c", "grep CapEff /proc/$(pidof containerd)/status")
	for _, mode := range []string{"plain", "privileged", "addcap"} {
		out, ok := criprobe(mode)
		if !ok {
			t.Fatalf("adapted config, %s pod failed:\n%s", mode, out)
		}
		if mode == "privileged" && !strings.Contains(out, strings.TrimSpace(containerdCaps)) {
			t.Errorf("privileged pod's capabilities are not containerd's (%s):\n%s", strings.TrimSpace(containerdCaps), out)
		}
	}
}
