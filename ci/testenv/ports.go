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

// hostAddress is a non-loopback IPv4 address of this host. The double's
// webhook listens there: an EndpointSlice may not point at loopback, and the
// konnectivity agent dials whatever the slice says.
func hostAddress() (net.IP, error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("list network interfaces: %w", err)
	}
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			if ip := ipn.IP.To4(); ip != nil && ip.IsGlobalUnicast() {
				return ip, nil
			}
		}
	}
	return nil, fmt.Errorf("this host has no non-loopback IPv4 address: the HAMi double's webhook must listen on one " +
		"(EndpointSlices may not point at 127.0.0.0/8) so the API server's call can go through the konnectivity agent; " +
		"bring up any interface with an IPv4 address (a dummy one is enough)")
}
