package stages

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

// Reach says how labctl reaches what runs on the Docker daemon.
type Reach struct {
	// Host is the daemon's hostname when the daemon is remote (DOCKER_HOST
	// tcp:// or ssh://, e.g. "docker" for a Dagger DinD service). The
	// management API server and every tenant NodePort are then published on
	// that host. Empty means a local daemon whose kind network is routable
	// from here (Linux), so tenants are reached at the management node IP.
	Host string
	// Bind is the address on the Docker host they are published on when
	// DOCKER_HOST gives the host as an IPv4 address: the address labctl
	// reaches the host at, so nothing listens on the host's other networks.
	// Empty means every address (0.0.0.0): DOCKER_HOST names the host (the
	// Dagger DinD service "docker", an ssh alias), and labctl cannot tell
	// which of the host's addresses that is — nor whether it is one of the
	// host's own at all (a NAT'd cloud address), which is also how to ask
	// for 0.0.0.0 on purpose.
	Bind string
	// CgroupV1: the daemon's host uses cgroup v1 (preflight reads it from
	// docker info); every kubelet the lab renders then gets
	// failCgroupV1: false (render Options.CgroupV1).
	CgroupV1 bool
}

// Remote reports whether the daemon is reached over the network.
func (r Reach) Remote() bool { return r.Host != "" }

// managementAPIPort is the fixed management API server port on a remote
// daemon (kind picks a random one locally).
const managementAPIPort = 6443

// ReachFor derives Reach from a DOCKER_HOST value.
func ReachFor(dockerHost string) (Reach, error) {
	dockerHost = strings.TrimSpace(dockerHost)
	if dockerHost == "" || strings.HasPrefix(dockerHost, "unix://") || strings.HasPrefix(dockerHost, "npipe://") {
		return Reach{}, nil
	}
	u, err := url.Parse(dockerHost)
	if err != nil || u.Hostname() == "" || (u.Scheme != "tcp" && u.Scheme != "ssh") {
		return Reach{}, fmt.Errorf("DOCKER_HOST %q: want unix:///path, tcp://host:port or ssh://user@host", dockerHost)
	}
	r := Reach{Host: u.Hostname()}
	if a, err := netip.ParseAddr(r.Host); err == nil && a.Is4() {
		r.Bind = a.String()
	}
	return r, nil
}

// bindAddress is where a remote daemon publishes the management API server
// and the tenant NodePorts: Bind, or 0.0.0.0 when DOCKER_HOST names the host.
func (r Reach) bindAddress() string {
	if r.Bind != "" {
		return r.Bind
	}
	return "0.0.0.0"
}

// renderOptions are the render inputs that depend on where the daemon is:
// a remote daemon needs the management API server on the host's network
// (bindAddress; kind's default 127.0.0.1 is the remote host's loopback) at
// a fixed port, the daemon's hostname in every certificate, and the tenant
// NodePorts published on the daemon's host at the same address
// (render.KindConfig gives them the API server's listen address).
func (r Reach) renderOptions(managementIP string) render.Options {
	o := render.Options{ManagementAddress: managementIP, CgroupV1: r.CgroupV1}
	if r.Remote() {
		o.APIServerAddress = r.bindAddress()
		o.APIServerPort = managementAPIPort
		o.CertSANs = []string{r.Host}
		o.PublishNodePorts = true
	}
	return o
}

// managementServer is the management API server URL labctl uses, given the
// one kind wrote (https://127.0.0.1:<port> locally, https://<bindAddress>:6443
// with a remote daemon).
func (r Reach) managementServer(kindServer string) (string, error) {
	if !r.Remote() {
		return kindServer, nil
	}
	u, err := url.Parse(kindServer)
	if err != nil || u.Port() == "" {
		return "", fmt.Errorf("kind kubeconfig server %q: want https://host:port", kindServer)
	}
	return fmt.Sprintf("https://%s:%s", r.Host, u.Port()), nil
}

// tenantServer is the tenant API server URL labctl uses.
func (r Reach) tenantServer(managementIP string, port int32) string {
	host := managementIP
	if r.Remote() {
		host = r.Host
	}
	return fmt.Sprintf("https://%s:%d", host, port)
}

// errAddressNotOwned is EADDRNOTAVAIL's text ("cannot assign requested
// address"), which the daemon reports when a port is published on an
// address the host does not have: Docker 20.10.24 here said "Error starting
// userland proxy: listen tcp4 192.0.2.1:32777: bind: cannot assign
// requested address" (TestDaemonBindHintForAnAddressTheHostLacks).
const errAddressNotOwned = "cannot assign requested address"

// bindHint explains a failed publish on Bind: DOCKER_HOST gives an address
// the Docker host does not have (a NAT'd cloud address), and says how to
// publish on all of the host's addresses instead.
func bindHint(r Reach, err error) error {
	if r.Bind == "" || err == nil || !strings.Contains(err.Error(), errAddressNotOwned) {
		return err
	}
	return errors.Join(err, fmt.Errorf("DOCKER_HOST gives the Docker host as %s, and labctl publishes the management API server "+
		"and the tenant NodePorts on that address only, but the host does not have it (a NAT'd or "+
		"forwarded address?): set DOCKER_HOST with the host's name instead (tcp://NAME:PORT or "+
		"ssh://USER@NAME) to publish on all of its addresses", r.Bind))
}
