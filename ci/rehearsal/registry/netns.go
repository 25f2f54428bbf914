package registry

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// nsDialer dials from inside the network namespace at nsPath: the socket
// is made on a thread that entered the namespace and is never used again
// (it stays locked, so it ends with its goroutine), and a socket keeps its
// namespace for life. The rest of the process stays where it is.
func nsDialer(nsPath string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		type result struct {
			c   net.Conn
			err error
		}
		ch := make(chan result, 1)
		go func() {
			runtime.LockOSThread()
			c, err := dialIn(ctx, nsPath, network, addr)
			ch <- result{c, err}
		}()
		r := <-ch
		return r.c, r.err
	}
}

func dialIn(ctx context.Context, nsPath, network, addr string) (net.Conn, error) {
	f, err := os.Open(nsPath)
	if err != nil {
		return nil, fmt.Errorf("network namespace %s: %w (is the private daemon up?)", nsPath, err)
	}
	defer f.Close()
	if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("entering network namespace %s: %w (needs root)", nsPath, err)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// Client is an HTTP client whose connections are made inside the network
// namespace at nsPath.
func Client(nsPath string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: nsDialer(nsPath), Proxy: nil, ResponseHeaderTimeout: 5 * time.Minute}}
}

// ListenIn listens on addr inside the network namespace at nsPath, as
// nsDialer dials: the listening socket is made on a thread that entered
// the namespace and is never used again, and keeps the namespace for life.
// So a server of this process answers inside the namespace only.
func ListenIn(nsPath, network, addr string) (net.Listener, error) {
	type result struct {
		l   net.Listener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		f, err := os.Open(nsPath)
		if err != nil {
			ch <- result{nil, fmt.Errorf("network namespace %s: %w (is the private daemon up?)", nsPath, err)}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{nil, fmt.Errorf("entering network namespace %s: %w (needs root)", nsPath, err)}
			return
		}
		l, err := net.Listen(network, addr)
		ch <- result{l, err}
	}()
	r := <-ch
	return r.l, r.err
}
