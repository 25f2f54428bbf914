package stages

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// Env is what every stage works with: the lab, the state dir, the edges and
// the facts earlier stages discovered. Facts are re-derived on demand (from
// Docker and the state dir), so `--only STAGE` works in a fresh process.
type Env struct {
	Lab    *lab.Lab
	State  state.Dir
	Docker Docker
	Kind   Kind
	Helm   Helm
	// Connect builds cluster clients from a kubeconfig.
	Connect Connector
	Reach   Reach
	// Network is the Docker network kind uses ("kind", or
	// KIND_EXPERIMENTAL_DOCKER_NETWORK).
	Network string
	// LabctlBinary is the labctl binary helm runs as HAMi's post-renderer;
	// default os.Executable().
	LabctlBinary string
	Timeouts     Timeouts
	// Poll is the interval of every wait loop.
	Poll time.Duration
	Log  *slog.Logger
	// Getenv reads labctl's environment (the proxy variables workers
	// inherit, as kind's nodes do); os.Getenv when nil.
	Getenv func(string) string
	// Preload is the image bundle loaded into the daemon (`up --images`);
	// nil: the daemon and the nodes pull what they need.
	Preload *Preload
	// Steps, when set, hears every step of a stage start and end, named
	// as the stage's dry-run names it (beside the debug log of each).
	Steps steps.Observer

	mu      sync.Mutex
	mgmtIP  string
	clients map[string]*Clients
}

// Timeouts bound each wait so nothing hangs.
type Timeouts struct {
	Pull         time.Duration // an image pull (no registry: fail fast)
	ClusterReady time.Duration // kind create --wait
	Rollout      time.Duration // a controller or DaemonSet becoming ready
	TenantReady  time.Duration // TenantControlPlane Ready
	NodeReady    time.Duration // a joined worker Ready
	Join         time.Duration // one kubeadm join (defaultJoinTimeout)
	Helm         time.Duration // one helm install
	Cards        time.Duration // HAMi seeing every card
}

// DefaultTimeouts follow upstream's own waits: Kamaji's e2e waits 5 minutes
// for a TCP (Kamaji 26.8.2-edge e2e/utils_test.go:140), kamaji-etcd's hook
// 300 s for its StatefulSet (kamaji-etcd v0.17.0
// templates/etcd_job_preinstall_2.yaml:30).
func DefaultTimeouts() Timeouts {
	return Timeouts{
		Pull:         30 * time.Second,
		ClusterReady: 5 * time.Minute,
		Rollout:      6 * time.Minute,
		TenantReady:  6 * time.Minute,
		NodeReady:    4 * time.Minute,
		Join:         defaultJoinTimeout,
		Helm:         10 * time.Minute,
		Cards:        3 * time.Minute,
	}
}

// DefaultNetwork is kind's network name, honouring kind's override.
func DefaultNetwork() string {
	if n := os.Getenv("KIND_EXPERIMENTAL_DOCKER_NETWORK"); n != "" {
		return n
	}
	return "kind"
}

func (e *Env) log() *slog.Logger {
	if e.Log != nil {
		return e.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (e *Env) poll() time.Duration {
	if e.Poll > 0 {
		return e.Poll
	}
	return 2 * time.Second
}

// controlPlaneContainer is kind's control-plane node container.
func (e *Env) controlPlaneContainer() string { return e.Lab.ManagementNodeName() }

// labLabel marks every container the lab starts besides kind's own.
func (e *Env) labLabel() string { return render.LabelLab + "=" + e.Lab.Name }

// managementIP is the management node's IPv4 address on the kind network.
func (e *Env) managementIP(ctx context.Context) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mgmtIP != "" {
		return e.mgmtIP, nil
	}
	c, err := e.Docker.InspectContainer(ctx, e.controlPlaneContainer())
	if err != nil {
		return "", fmt.Errorf("management node: %w", err)
	}
	ip, err := docker.ContainerIPv4(c, e.Network)
	if err != nil {
		return "", fmt.Errorf("management node: %w", err)
	}
	e.mgmtIP = ip.String()
	return e.mgmtIP, nil
}

// renderOptions are render's inputs for this lab, with the management IP.
func (e *Env) renderOptions(ctx context.Context) (render.Options, error) {
	ip, err := e.managementIP(ctx)
	if err != nil {
		return render.Options{}, err
	}
	return e.Reach.renderOptions(ip), nil
}

// managementClients connects to the management cluster via the state dir.
func (e *Env) managementClients() (*Clients, error) {
	return e.clientsFor("", e.State.ManagementKubeconfig())
}

// tenantClients connects to a tenant via its kubeconfig in the state dir.
func (e *Env) tenantClients(tenant string) (*Clients, error) {
	return e.clientsFor(tenant, e.State.Kubeconfig(tenant))
}

func (e *Env) clientsFor(key, path string) (*Clients, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, ok := e.clients[key]; ok {
		return c, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		what := "the management cluster"
		if key != "" {
			what = "tenant " + key
		}
		return nil, fmt.Errorf("kubeconfig of %s: %w (run the stage that writes it first)", what, err)
	}
	c, err := e.Connect(data)
	if err != nil {
		return nil, fmt.Errorf("connect with %s: %w", path, err)
	}
	if e.clients == nil {
		e.clients = map[string]*Clients{}
	}
	e.clients[key] = c
	return c, nil
}

// forget drops cached clients (after a kubeconfig was rewritten).
func (e *Env) forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.clients, key)
}

// tenantIndex returns the tenant's position in the lab.
func (e *Env) tenantIndex(name string) int {
	for i, t := range e.Lab.Tenants {
		if t.Name == name {
			return i
		}
	}
	return -1
}
