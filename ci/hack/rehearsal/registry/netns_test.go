package registry

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"
)

// A listener made by ListenIn answers inside its namespace (nsDialer
// reaches it) and not outside it (the same address from this process's
// own namespace is refused). Needs root and iproute2.
func TestListenInAnswersInsideTheNamespaceOnly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (ip netns add)")
	}
	name := fmt.Sprintf("gpu-lab-regtest-%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Skipf("cannot make a network namespace here: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
	if out, err := exec.Command("ip", "-n", name, "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("ip -n %s link set lo up: %v: %s", name, err, out)
	}
	nsPath := "/run/netns/" + name

	ln, err := ListenIn(nsPath, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("inside\n"))
			c.Close()
		}
	}()
	addr := ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	c, err := nsDialer(nsPath)(ctx, "tcp", addr)
	if err != nil {
		t.Fatalf("dial %s inside the namespace: %v", addr, err)
	}
	buf := make([]byte, 7)
	if _, err := c.Read(buf); err != nil || string(buf) != "inside\n" {
		t.Errorf("read %q, %v; want the listener's greeting", buf, err)
	}
	c.Close()

	var d net.Dialer
	if c, err := d.DialContext(ctx, "tcp", addr); err == nil {
		c.Close()
		t.Errorf("dial %s from the host's namespace succeeded: the listener is not inside %s", addr, name)
	}

	if _, err := ListenIn("/run/netns/gpu-lab-no-such-namespace", "tcp", "127.0.0.1:0"); err == nil {
		t.Error("ListenIn in a namespace that does not exist succeeded")
	}
}
