package docker

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
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// daemon returns a CLI for the real Docker daemon, or skips the test when
// none answers.
func daemon(t *testing.T) CLI {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("skipping: no docker CLI on PATH (these tests drive a real Docker daemon)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := CLI{}
	if _, err := c.Ping(ctx); err != nil {
		t.Skipf("skipping: no Docker daemon answers (%v)", err)
	}
	return c
}

func uniqueName(t *testing.T, prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// tinyImage builds testdata/tiny as a static binary and imports it as an
// image holding only that file, since no image can be pulled here.
func tinyImage(t *testing.T, ctx context.Context, c CLI) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tiny")
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./testdata/tiny")
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
	tw.Write(data)
	tw.Close()
	ref := uniqueName(t, "gpu-lab-test-tiny") + ":test"
	if err := c.Import(ctx, &buf, ref, `CMD ["/tiny","sleep"]`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.RemoveImage(context.Background(), ref) })
	return ref
}

func TestDaemonDualStackNetworkAndContainer(t *testing.T) {
	t.Parallel() // its objects have names of their own
	c := daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	img := tinyImage(t, ctx, c)

	netName := uniqueName(t, "gpu-lab-test-net")
	// A random /24 in 172.31.x and a ULA /64, like kind's dual-stack network.
	b := make([]byte, 2)
	_, _ = rand.Read(b)
	v4 := "172.31." + itoa(int(b[0])) + ".0/24"
	v6 := "fc00:f853:" + hex.EncodeToString(b) + ":e793::/64"
	if err := c.CreateNetwork(ctx, NetworkSpec{Name: netName, Subnets: []string{v6, v4},
		Labels: map[string]string{"gpu-lab.dev/test": "1"}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.RemoveNetwork(context.Background(), netName) })

	n, err := c.InspectNetwork(ctx, netName)
	if err != nil {
		t.Fatal(err)
	}
	if !n.EnableIPv6 {
		t.Errorf("network %s: EnableIPv6 = false, want dual stack", netName)
	}
	sub, err := ipv4Subnet(n)
	if err != nil {
		t.Fatal(err)
	}
	if sub.String() != v4 {
		t.Fatalf("IPv4Subnet = %s, want %s", sub, v4)
	}

	name := uniqueName(t, "gpu-lab-test-ctr")
	t.Cleanup(func() { _ = c.RemoveContainer(context.Background(), name) })
	id, err := c.RunContainer(ctx, RunSpec{Name: name, Image: img, Network: netName, Hostname: name,
		Labels: map[string]string{"gpu-lab.dev/test": name}})
	if err != nil {
		t.Fatal(err)
	}
	if id == "" {
		t.Fatal("RunContainer returned no ID")
	}
	exists, err := c.ContainerExists(ctx, name)
	if err != nil || !exists {
		t.Fatalf("ContainerExists = %v, %v", exists, err)
	}
	ctr, err := c.InspectContainer(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if !ctr.State.Running {
		t.Fatalf("container %s not running: %+v", name, ctr.State)
	}
	ip, err := ContainerIPv4(ctr, netName)
	if err != nil {
		t.Fatal(err)
	}
	if !sub.Contains(ip) {
		t.Fatalf("container IPv4 %s not in network subnet %s", ip, sub)
	}
	if ctr.NetworkSettings.Networks[netName].GlobalIPv6Address == "" {
		t.Errorf("container has no IPv6 address on the dual-stack network")
	}

	out, err := c.Exec(ctx, name, nil, "/tiny", "addrs")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), ip.String()+"/") {
		t.Fatalf("exec addrs inside the container = %q, want it to list %s", out, ip)
	}
	out, err = c.Exec(ctx, name, strings.NewReader("from stdin"), "/tiny", "cat")
	if err != nil || string(out) != "from stdin" {
		t.Fatalf("exec with stdin = %q, %v", out, err)
	}
	_, err = c.Exec(ctx, name, nil, "/tiny", "bogus")
	var de *Error
	if !errors.As(err, &de) || !strings.Contains(de.Stderr, "unknown mode") {
		t.Fatalf("failing exec: err = %v, want *Error with the command's stderr", err)
	}

	names, err := c.ListContainers(ctx, "gpu-lab.dev/test="+name)
	if err != nil || len(names) != 1 || names[0] != name {
		t.Fatalf("ListContainers = %v, %v", names, err)
	}

	if err := c.RemoveContainer(ctx, name); err != nil {
		t.Fatal(err)
	}
	if exists, err := c.ContainerExists(ctx, name); err != nil || exists {
		t.Fatalf("after remove: ContainerExists = %v, %v", exists, err)
	}
	if err := c.RemoveContainer(ctx, name); err != nil {
		t.Fatalf("removing a missing container must be a no-op: %v", err)
	}
	if err := c.RemoveNetwork(ctx, netName); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InspectNetwork(ctx, netName); !IsNotFound(err) {
		t.Fatalf("after remove: inspect err = %v, want not found", err)
	}
}

func TestDaemonEnsureImageFailsFastWithoutRegistry(t *testing.T) {
	c := daemon(t)
	ctx := context.Background()
	ref := "gpu-lab.invalid/" + uniqueName(t, "absent") + ":v0"
	start := time.Now()
	err := c.EnsureImage(ctx, ref, 5*time.Second)
	if err == nil {
		t.Fatalf("EnsureImage(%s) succeeded; the image cannot exist", ref)
	}
	if !errors.Is(err, ErrNoRegistry) || !strings.Contains(err.Error(), "cannot pull "+ref) {
		t.Fatalf("err = %v, want ErrNoRegistry naming the image", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("EnsureImage took %s; it must give up after its timeout", d)
	}
}

func TestDaemonImportedImageExists(t *testing.T) {
	t.Parallel() // its objects have names of their own
	c := daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	img := tinyImage(t, ctx, c)
	ok, err := c.ImageExists(ctx, img)
	if err != nil || !ok {
		t.Fatalf("ImageExists(%s) = %v, %v", img, ok, err)
	}
	if err := c.EnsureImage(ctx, img, time.Second); err != nil {
		t.Fatalf("EnsureImage of a local image must not pull: %v", err)
	}
	var buf bytes.Buffer
	if err := c.Save(ctx, img, &buf); err != nil {
		t.Fatal(err)
	}
	if buf.Len() == 0 {
		t.Fatal("docker save wrote nothing")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// ImageIDs answers for several images in one command, in the order asked,
// and fails as not found, with no IDs, when one of them is missing.
func TestDaemonImageIDsInOneCommand(t *testing.T) {
	t.Parallel() // its objects have names of their own
	c := daemon(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := tinyImage(t, ctx, c)
	b := uniqueName(t, "gpu-lab-test-tiny-b") + ":test"
	if err := c.Import(ctx, bytes.NewReader(emptyTar(t)), b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.RemoveImage(context.Background(), b) })
	idA, err := c.ImageID(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	idB, err := c.ImageID(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if idA == idB {
		t.Fatalf("the two images share ID %s: the order could not be checked", idA)
	}
	ids, err := c.ImageIDs(ctx, b, a)
	if err != nil || !slices.Equal(ids, []string{idB, idA}) {
		t.Fatalf("ImageIDs(%s, %s) = %v, %v; want [%s %s]", b, a, ids, err, idB, idA)
	}
	missing := uniqueName(t, "gpu-lab-test-missing") + ":none"
	ids, err = c.ImageIDs(ctx, a, missing, b)
	if !IsNotFound(err) || ids != nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("ImageIDs with %s missing = %v, %v; want no IDs and a not-found error naming it", missing, ids, err)
	}
}

// emptyTar is a tar archive with no files: docker import makes an image of it.
func emptyTar(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := tar.NewWriter(&buf).Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
