package testenv

import (
	"fmt"
	"net"
	"sync"
)

// portAllocator proposes TCP ports on 127.0.0.1 for components that only
// take a port number. A proposal is a port the kernel just gave a probe
// listener, closed again at once: nothing holds it until the component binds,
// so another process may take it first. That race is not avoided here but
// survived: startBound starts a component whose bind failed again on new
// ports. What the allocator guarantees is that no two environments of this
// process are proposed the same port.
type portAllocator struct {
	// keep, when set, sees the probe listener of each first proposal
	// before it is closed and may keep it open (returning true): the port
	// is then taken before the component binds it. Tests use it to prove
	// that a lost bind is survived.
	keep func(net.Listener) bool
	// probe, when set, listens on the port to propose instead of asking
	// the kernel for an ephemeral one (127.0.0.1:0). A test that counts
	// rebinds proposes ports no other process is handed meanwhile.
	probe func() (net.Listener, error)
}

// The ports first proposed to each part of an environment (frees): etcd's
// client and peer ports; per tenant the API server's, konnectivity
// server's (agent, health, admin) and agent's (health, admin), kube-
// scheduler's, kube-controller-manager's and HAMi's scheduler's (HTTP and
// metrics). KWOK listens on none (startKWOK).
const (
	etcdPorts   = 2
	tenantPorts = 10
)

// proposed remembers every port proposed in this process, across
// environments (e2e tests start several at once).
var proposed = struct {
	sync.Mutex
	m map[int]bool
}{m: map[int]bool{}}

func newPortAllocator(keep func(net.Listener) bool) *portAllocator {
	return &portAllocator{keep: keep}
}

// free proposes one port on 127.0.0.1.
func (a *portAllocator) free() (int, error) { return propose(a.probe, a.keep) }

// replacement proposes a port for a component that lost its bind; keep
// does not see it, so a test that took a component's first ports lets it
// move.
func (a *portAllocator) replacement() (int, error) { return propose(a.probe, nil) }

func propose(probe func() (net.Listener, error), keep func(net.Listener) bool) (int, error) {
	if probe == nil {
		probe = func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
	}
	proposed.Lock()
	defer proposed.Unlock()
	for range 50 {
		l, err := probe()
		if err != nil {
			return 0, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		if proposed.m[p] {
			l.Close()
			continue
		}
		proposed.m[p] = true
		if keep == nil || !keep(l) {
			l.Close()
		}
		return p, nil
	}
	return 0, fmt.Errorf("find a free port on 127.0.0.1: only ports proposed before after 50 tries")
}

// frees proposes n ports.
func (a *portAllocator) frees(n int) ([]int, error) {
	out := make([]int, n)
	for i := range out {
		p, err := a.free()
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}
