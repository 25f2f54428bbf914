package nodeadapt

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// dockerCLI runs the docker CLI against the private daemon.
type dockerCLI struct {
	t    *testing.T
	ctx  context.Context
	host string
}

func (d dockerCLI) cmd(args ...string) *exec.Cmd {
	c := exec.CommandContext(d.ctx, "docker", args...)
	c.Env = append(os.Environ(), "DOCKER_HOST="+d.host)
	return c
}

func (d dockerCLI) run(args ...string) string {
	d.t.Helper()
	out, err := d.cmd(args...).CombinedOutput()
	if err != nil {
		d.t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// exec runs a command in a container and returns its combined output.
func (d dockerCLI) exec(container string, args ...string) (string, error) {
	out, err := d.cmd(append([]string{"exec", container}, args...)...).CombinedOutput()
	return string(out), err
}

func (d dockerCLI) mustExec(container string, args ...string) string {
	d.t.Helper()
	out, err := d.exec(container, args...)
	if err != nil {
		d.t.Fatalf("docker exec %s %s: %v\n%s", container, strings.Join(args, " "), err, out)
	}
	return out
}

// pipe runs docker with src's output as its input (docker import of a tar).
func (d dockerCLI) pipe(src *exec.Cmd, args ...string) {
	d.t.Helper()
	c := d.cmd(args...)
	r, err := src.StdoutPipe()
	if err != nil {
		d.t.Fatal(err)
	}
	c.Stdin = r
	if err := src.Start(); err != nil {
		d.t.Fatal(err)
	}
	out, err := c.CombinedOutput()
	if werr := src.Wait(); werr != nil {
		d.t.Fatalf("%s: %v", strings.Join(src.Args, " "), werr)
	}
	if err != nil {
		d.t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// waitForConsole follows a container's console until a line contains
// text: systemd prints "Reached target multi-user.target - Multi-User
// System." once that target's units have started (a target is ordered after
// the units it wants: systemd.target(5), Default Dependencies), containerd
// among them.
func (d dockerCLI) waitForConsole(container, text string) {
	d.t.Helper()
	c := d.cmd("logs", "--follow", container)
	r, err := c.StdoutPipe()
	if err != nil {
		d.t.Fatal(err)
	}
	c.Stderr = c.Stdout
	if err := c.Start(); err != nil {
		d.t.Fatal(err)
	}
	defer func() { _ = c.Process.Kill(); _ = c.Wait() }()
	sc := bufio.NewScanner(r)
	var seen []string
	for sc.Scan() {
		if strings.Contains(sc.Text(), text) {
			return
		}
		seen = append(seen, sc.Text())
	}
	d.t.Fatalf("%s's console ended (%v) before %q; it said:\n%s", container, d.ctx.Err(), text, strings.Join(seen, "\n"))
}

type binaries struct{ probe, criprobe, wrapper string }

// buildBinaries builds the static programs the node test copies into the
// node: the probe (hostdaemon's test image program), criprobe (its own
// module, testdata/criprobe) and the runtime wrapper.
func buildBinaries(t *testing.T, ctx context.Context) binaries {
	t.Helper()
	dir := t.TempDir()
	b := binaries{probe: filepath.Join(dir, "probe"), criprobe: filepath.Join(dir, "criprobe"), wrapper: filepath.Join(dir, "runc-capfilter")}
	for _, c := range []struct{ out, pkg, in string }{
		{b.probe, "./testdata/probe", "../hostdaemon"},
		{b.criprobe, ".", "testdata/criprobe"},
	} {
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", c.out, c.pkg)
		cmd.Dir = c.in
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s in %s: %v\n%s", c.pkg, c.in, err, out)
		}
	}
	if err := BuildWrapper(ctx, b.wrapper); err != nil {
		t.Fatal(err)
	}
	return b
}
