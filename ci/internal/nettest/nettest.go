// Package nettest gives tests loopback endpoints that fail the way an
// unreachable server does: one that accepts TCP and never answers (a TLS
// client waits for a ServerHello that never comes) and one that refuses
// every connection. Both stay reserved for the test, so no other program
// takes the port meanwhile.
package nettest

import (
	"fmt"
	"net"
	"sync"
	"syscall"
	"testing"
)

// SilentServer accepts TCP connections on loopback and never answers, like
// a stopped API server whose socket is still open. It returns host:port.
func SilentServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// RefusingAddr is a loopback host:port that refuses connections, like an
// environment whose processes are gone: a socket bound to it but not
// listening holds the port, and the kernel answers every SYN with a reset.
func RefusingAddr(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}
