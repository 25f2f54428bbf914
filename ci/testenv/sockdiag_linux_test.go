package testenv

import (
	"net"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// sock_diag's answer is read at fixed offsets of the kernel's struct
// inet_diag_msg: the kernel's own /proc tables (listeningSockets, checked
// against a recorded table) must name the test's listening socket, by its
// inode, on its port, in both address families, and the test's connected
// socket must not be listed at all. Only the test's own sockets are
// looked at: the machine's other processes (ci/test/e2e's environments, under
// go test) open and close listeners while the test reads, some on the
// same port numbers on other addresses.
func TestSockDiagListenersMatchTheProcTables(t *testing.T) {
	if _, err := diagListeners(); err != nil {
		t.Skipf("this kernel has no sock_diag for TCP (listensOn reads /proc instead): %v", err)
	}
	for _, c := range []struct{ network, addr, table string }{
		{"tcp4", "127.0.0.1:0", "tcp"},
		{"tcp6", "[::1]:0", "tcp6"},
	} {
		t.Run(c.network, func(t *testing.T) {
			l, err := net.Listen(c.network, c.addr)
			if err != nil {
				t.Skipf("no %s loopback here: %v", c.network, err)
			}
			defer l.Close()
			conn, err := net.Dial(c.network, l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			port := l.Addr().(*net.TCPAddr).Port
			listener, client := fdInode(t, l.(*net.TCPListener)), fdInode(t, conn.(*net.TCPConn))

			b, err := os.ReadFile("/proc/self/net/" + c.table)
			if err != nil {
				t.Fatal(err)
			}
			if got := listeningSockets(string(b))[port]; !slices.Contains(got, listener) {
				t.Fatalf("/proc/self/net/%s lists inodes %v listening on port %d, not the test's %s", c.table, got, port, listener)
			}
			diag, err := diagListeners()
			if err != nil {
				t.Fatal(err)
			}
			if got := diag[port]; !slices.Contains(got, listener) {
				t.Errorf("sock_diag: port %d has inodes %v, not the test's listener %s (as /proc/self/net/%s has)", port, got, listener, c.table)
			}
			for p, inodes := range diag {
				if slices.Contains(inodes, client) {
					t.Errorf("sock_diag lists the test's connected socket %s as listening on port %d", client, p)
				}
			}
		})
	}
}

// fdInode is the inode of a socket of this process, as its fd's link in
// /proc/self/fd names it.
func fdInode(t *testing.T, c syscall.Conn) string {
	t.Helper()
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var link string
	var lerr error
	if err := raw.Control(func(fd uintptr) {
		link, lerr = os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd)))
	}); err != nil {
		t.Fatal(err)
	}
	if lerr != nil {
		t.Fatal(lerr)
	}
	inode, ok := socketInode(link)
	if !ok {
		t.Fatalf("fd link %q is not a socket", link)
	}
	return inode
}

// BenchmarkListeners compares what one poll of waitBound costs with the
// machine holding many sockets, as while ci/test/e2e runs (about 1200): the
// kernel's LISTEN sockets through sock_diag against the /proc tables of
// every socket.
func BenchmarkListeners(b *testing.B) {
	const conns = 600 // two sockets each: about the 1200 seen during ci/test/e2e
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	var open []net.Conn
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	for i := range conns {
		c, err := net.Dial("tcp4", l.Addr().String())
		if err != nil {
			b.Fatalf("connection %d of %d: %v", i+1, conns, err)
		}
		s, err := l.Accept()
		if err != nil {
			b.Fatal(err)
		}
		open = append(open, c, s)
	}
	b.Run("sock_diag", func(b *testing.B) {
		for b.Loop() {
			if _, err := diagListeners(); err != nil {
				b.Skip(err)
			}
		}
	})
	b.Run("proc", func(b *testing.B) {
		for b.Loop() {
			procListeners("/proc/self")
		}
	})
}
