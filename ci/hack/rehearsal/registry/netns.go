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

// nsDialer dials from inside the network namespace at nsPath (inNetns).
func nsDialer(nsPath string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return inNetns(nsPath, func() (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		})
	}
}

// inNetns makes a socket (fn) inside the network namespace at nsPath: on
// a thread that entered the namespace and is never used again (it stays
// locked, so it ends with its goroutine); a socket keeps its namespace for
// life. The rest of the process stays where it is.
func inNetns[T any](nsPath string, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		var zero T
		f, err := os.Open(nsPath)
		if err != nil {
			ch <- result{zero, fmt.Errorf("network namespace %s: %w (is the private daemon up?)", nsPath, err)}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{zero, fmt.Errorf("entering network namespace %s: %w (needs root)", nsPath, err)}
			return
		}
		v, err := fn()
		ch <- result{v, err}
	}()
	r := <-ch
	return r.v, r.err
}

// Client is an HTTP client whose connections are made inside the network
// namespace at nsPath.
func Client(nsPath string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: nsDialer(nsPath), Proxy: nil, ResponseHeaderTimeout: 5 * time.Minute}}
}

// ListenIn listens on addr inside the network namespace at nsPath
// (inNetns), so a server of this process answers inside the namespace only.
func ListenIn(nsPath, network, addr string) (net.Listener, error) {
	return inNetns(nsPath, func() (net.Listener, error) { return net.Listen(network, addr) })
}
