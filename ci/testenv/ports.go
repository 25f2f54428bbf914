package testenv

import (
	"fmt"
	"net"
	"sync"
)

// portAllocator hands out free TCP ports on a host. A port is free when a
// listener could bind it; the listener is closed before the component starts,
// so the allocator also remembers what it gave out to never hand a port out twice.
type portAllocator struct {
	mu   sync.Mutex
	used map[int]bool
}

func newPortAllocator() *portAllocator { return &portAllocator{used: map[int]bool{}} }

func (a *portAllocator) free(host string) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for range 50 {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return 0, fmt.Errorf("find a free port on %s: %w", host, err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !a.used[p] {
			a.used[p] = true
			return p, nil
		}
	}
	return 0, fmt.Errorf("find a free port on %s: no unused port after 50 tries", host)
}

// frees returns n free ports on 127.0.0.1.
func (a *portAllocator) frees(n int) ([]int, error) {
	out := make([]int, n)
	for i := range out {
		p, err := a.free("127.0.0.1")
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}
