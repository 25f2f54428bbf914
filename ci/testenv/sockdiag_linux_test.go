package testenv

import (
	"net"
	"os"
	"slices"
	"testing"
)

// sock_diag's answer is read at fixed offsets of the kernel's struct
// inet_diag_msg: the kernel's own /proc tables (listeningSockets, checked
// against a recorded table) must name the same inode for the same port, in
// both address families, and a connected socket must not count.
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
			client := conn.LocalAddr().(*net.TCPAddr).Port

			b, err := os.ReadFile("/proc/self/net/" + c.table)
			if err != nil {
				t.Fatal(err)
			}
			want := listeningSockets(string(b))[port]
			if len(want) != 1 {
				t.Fatalf("/proc/self/net/%s lists %d listening sockets on port %d, want 1", c.table, len(want), port)
			}
			diag, err := diagListeners()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(diag[port], want) {
				t.Errorf("sock_diag: port %d has inodes %v, /proc/self/net/%s %v", port, diag[port], c.table, want)
			}
			if got := diag[client]; len(got) > 0 {
				t.Errorf("sock_diag lists the connected client port %d as listening: %v", client, got)
			}
		})
	}
}

// BenchmarkListeners compares what one poll of waitBound costs with the
// machine holding many sockets, as while ci/e2e runs (about 1200): the
// kernel's LISTEN sockets through sock_diag against the /proc tables of
// every socket.
func BenchmarkListeners(b *testing.B) {
	const conns = 600 // two sockets each: about the 1200 seen during ci/e2e
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
