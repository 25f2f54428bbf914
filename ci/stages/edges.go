package stages

import (
	"context"
	"io"
	"sync"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
)

// Docker is what the stages need from a Docker daemon (docker.CLI).
type Docker interface {
	Ping(ctx context.Context) (string, error)
	EnsureImage(ctx context.Context, ref string, timeout time.Duration) error
	InspectNetwork(ctx context.Context, name string) (docker.Network, error)
	RemoveNetwork(ctx context.Context, name string) error
	InspectContainer(ctx context.Context, name string) (docker.Container, error)
	ContainerExists(ctx context.Context, name string) (bool, error)
	RunContainer(ctx context.Context, s docker.RunSpec) (string, error)
	Exec(ctx context.Context, container string, stdin io.Reader, cmd ...string) ([]byte, error)
	RemoveContainer(ctx context.Context, name string) error
	ListContainers(ctx context.Context, label string) ([]string, error)
	Logs(ctx context.Context, name string) ([]byte, error)
	Import(ctx context.Context, tarball io.Reader, ref string, changes ...string) error
	// SaveAll streams one archive of several images (docker save ref...).
	SaveAll(ctx context.Context, refs []string, w io.Writer) error
	// ImageTransfer says how images leave the daemon: its image store and
	// platform (the nodes').
	ImageTransfer(ctx context.Context) (docker.ImageTransfer, error)
	ImageExists(ctx context.Context, ref string) (bool, error)
	Info(ctx context.Context) (docker.DaemonInfo, error)
	// ProbeHost reads the host in a privileged container (preflight).
	ProbeHost(ctx context.Context, image string, usernsHost bool) (docker.HostProbe, error)
	ImageSizes(ctx context.Context, refs ...string) ([]int64, error)
}

var _ Docker = docker.CLI{}

// Kind is what the stages need from kind's cluster provider.
type Kind interface {
	// Create creates the cluster and writes its kubeconfig to kubeconfigPath.
	Create(ctx context.Context, cfg *kind.Cluster, kubeconfigPath string) error
	// Exists reports whether a cluster of that name exists.
	Exists(ctx context.Context, name string) (bool, error)
	// KubeConfig returns the external kubeconfig of the cluster.
	KubeConfig(ctx context.Context, name string) ([]byte, error)
	Delete(ctx context.Context, name, kubeconfigPath string) error
	// CollectLogs writes kind's node logs under dir.
	CollectLogs(ctx context.Context, name, dir string) error
}

// Helm runs the pinned helm CLI against a cluster.
type Helm interface {
	Run(ctx context.Context, kubeconfigPath string, args ...string) ([]byte, error)
}

// Clients talk to one cluster (management or a tenant).
type Clients struct {
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface

	applierOnce sync.Once
	applier     *kube.Applier
}

// serverSideApplier applies objects to this cluster with server-side apply; one per
// Clients, so its discovery cache lives as long as the cached clients.
func (c *Clients) serverSideApplier() *kube.Applier {
	c.applierOnce.Do(func() { c.applier = kube.NewApplier(c.Dynamic, c.Kube.Discovery()) })
	return c.applier
}

// Connector builds clients from a kubeconfig.
type Connector func(kubeconfig []byte) (*Clients, error)
