package stages

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube/kubetest"
	"github.com/gpu-lab/gpu-lab/ci/internal/kubeconfig"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// fakeDocker records calls; containers map name → inspect result.
type fakeDocker struct {
	mu         sync.Mutex
	calls      []string
	containers map[string]docker.Container
	images     map[string]bool
	pullErr    error
	execOut    func(container string, cmd []string) ([]byte, error)
	// execCtx, when set, sees the context of every exec (its deadline).
	execCtx func(ctx context.Context, container string, cmd []string)
	// execWith, when set, answers every exec in place of execOut, with
	// the exec's context (to block until it is cancelled).
	execWith func(ctx context.Context, container string, cmd []string) ([]byte, error)
	// stdin holds what each container's last exec with stdin was given.
	stdin map[string][]byte
	// info is what `docker info` says; network what the lab's network
	// inspect says; specs every container started.
	info    docker.DaemonInfo
	network docker.Network
	// noNetwork: the network does not exist (inspect says not found).
	noNetwork        bool
	removeNetworkErr error
	removedNetworks  []string
	networkRmCalls   int
	specs            []docker.RunSpec
	// seq numbers the container IDs kindNode makes.
	seq int
	// host is what preflight's privileged probe reads (nil: a host that
	// passes, fakes_host_test.go); sizes the daemon's image sizes.
	host  *hostProbeResult
	sizes map[string]int64
}

func (f *fakeDocker) Info(context.Context) (docker.DaemonInfo, error) { return f.info, nil }

func (f *fakeDocker) record(s string) { f.mu.Lock(); f.calls = append(f.calls, s); f.mu.Unlock() }

func (f *fakeDocker) Ping(context.Context) (string, error) { return "fake", nil }
func (f *fakeDocker) EnsureImage(_ context.Context, ref string, _ time.Duration) error {
	f.record("ensure " + ref)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.images[ref] {
		return nil
	}
	return f.pullErr
}
func (f *fakeDocker) InspectNetwork(_ context.Context, name string) (docker.Network, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.noNetwork {
		return docker.Network{}, &docker.Error{Args: []string{"network", "inspect", name},
			Stderr: "Error response from daemon: network " + name + " not found", Err: fmt.Errorf("exit 1")}
	}
	return f.network, nil
}

// RemoveNetwork records the removal; removeNetworkErr is Docker's refusal.
func (f *fakeDocker) RemoveNetwork(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.networkRmCalls++
	if f.removeNetworkErr != nil {
		return f.removeNetworkErr
	}
	f.removedNetworks = append(f.removedNetworks, name)
	return nil
}
func (f *fakeDocker) InspectContainer(_ context.Context, name string) (docker.Container, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.containers[name]
	if !ok {
		return docker.Container{}, &docker.Error{Args: []string{"inspect", name}, Stderr: "Error: No such container: " + name,
			Err: fmt.Errorf("exit 1")}
	}
	return c, nil
}
func (f *fakeDocker) ContainerExists(ctx context.Context, name string) (bool, error) {
	_, err := f.InspectContainer(ctx, name)
	return err == nil, nil
}
func (f *fakeDocker) RunContainer(_ context.Context, s docker.RunSpec) (string, error) {
	f.record("run " + s.Name)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.specs = append(f.specs, s)
	c := runningOn(s.Name, "kind", "172.18.0.9")
	c.ID, c.Config.Labels = "id-"+s.Name, s.Labels // as docker run records them
	f.containers[s.Name] = c
	return c.ID, nil
}
func (f *fakeDocker) Exec(ctx context.Context, name string, stdin io.Reader, cmd ...string) ([]byte, error) {
	if stdin != nil {
		b, _ := io.ReadAll(stdin)
		f.mu.Lock()
		if f.stdin == nil {
			f.stdin = map[string][]byte{}
		}
		f.stdin[name] = b
		f.mu.Unlock()
	}
	f.record("exec " + name + " " + strings.Join(cmd, " "))
	if f.execCtx != nil {
		f.execCtx(ctx, name, cmd)
	}
	if f.execWith != nil {
		return f.execWith(ctx, name, cmd)
	}
	if f.execOut != nil {
		return f.execOut(name, cmd)
	}
	return nil, nil
}
func (f *fakeDocker) RemoveContainer(_ context.Context, name string) error {
	f.record("rm " + name)
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.containers, name)
	return nil
}
func (f *fakeDocker) ListContainers(_ context.Context, label string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n, c := range f.containers {
		k, v, _ := strings.Cut(label, "=")
		if c.Config.Labels[k] == v {
			out = append(out, n)
		}
	}
	return out, nil
}
func (f *fakeDocker) Logs(context.Context, string) ([]byte, error) { return []byte("log"), nil }
func (f *fakeDocker) Import(_ context.Context, _ io.Reader, ref string, _ ...string) error {
	f.record("import " + ref)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.images[ref] = true
	return nil
}
func (f *fakeDocker) SaveAll(_ context.Context, refs []string, w io.Writer) error {
	_, err := w.Write([]byte("archive of " + strings.Join(refs, " ")))
	return err
}
func (f *fakeDocker) ImageExists(_ context.Context, ref string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.images[ref], nil
}

func runningOn(name, network, ip string) docker.Container {
	c := docker.Container{Name: "/" + name}
	c.State.Running, c.State.Status = true, "running"
	c.NetworkSettings.Networks = map[string]docker.Endpoint{network: {IPAddress: ip, GlobalIPv6Address: "fc00:f853:ccd:e793::9"}}
	return c
}

type fakeKind struct {
	// docker, when set, gets the node container kind's docker provider
	// would create: named <cluster>-control-plane, labelled with kind's
	// cluster label (owner.go), given a fresh ID.
	docker     *fakeDocker
	exists     bool
	created    *kind.Cluster
	deleted    bool
	kubeconfig []byte
	calls      []string
	// onCreate, when set, runs once Create has made the node container, and
	// its error is Create's: a test can hold a create there as a killed
	// labctl leaves it.
	onCreate func() error
}

func (k *fakeKind) Create(_ context.Context, cfg *kind.Cluster, _ string) error {
	k.calls = append(k.calls, "create")
	k.created, k.exists = cfg, true
	if k.docker != nil {
		k.docker.kindNode(cfg.Name)
	}
	if hook := k.onCreate; hook != nil {
		k.onCreate = nil
		return hook()
	}
	return nil
}

// kindNode adds (or marks) cluster's control-plane container as kind
// v0.33.0 creates it: labels io.x-k8s.kind.cluster=<cluster> and
// io.x-k8s.kind.role=control-plane (provision.go:140,220), a new ID. A
// container the test put there already keeps its network.
func (f *fakeDocker) kindNode(cluster string) docker.Container {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := cluster + "-control-plane"
	c, ok := f.containers[name]
	if !ok {
		c = runningOn(name, "kind", "172.18.0.2")
	}
	f.seq++
	c.ID = fmt.Sprintf("%064x", f.seq)
	c.Config.Labels = map[string]string{owner.KindClusterLabel: cluster, "io.x-k8s.kind.role": "control-plane"}
	f.containers[name] = c
	return c
}
func (k *fakeKind) Exists(context.Context, string) (bool, error) { return k.exists, nil }
func (k *fakeKind) KubeConfig(context.Context, string) ([]byte, error) {
	return k.kubeconfig, nil
}
func (k *fakeKind) Delete(context.Context, string, string) error {
	k.calls = append(k.calls, "delete")
	k.deleted, k.exists = true, false
	if k.docker != nil {
		k.docker.mu.Lock()
		defer k.docker.mu.Unlock()
		for n, c := range k.docker.containers {
			if _, ok := c.Config.Labels[owner.KindClusterLabel]; ok {
				delete(k.docker.containers, n)
			}
		}
	}
	return nil
}
func (k *fakeKind) CollectLogs(context.Context, string, string) error {
	k.calls = append(k.calls, "logs")
	return nil
}

type fakeHelm struct{ calls []string }

func (h *fakeHelm) Run(_ context.Context, kc string, args ...string) ([]byte, error) {
	h.calls = append(h.calls, strings.Join(args, " "))
	return nil, fmt.Errorf("release: not found")
}

// fakeClusters hands out one fake clientset pair per kubeconfig content.
type fakeClusters struct {
	mu  sync.Mutex
	by  map[string]*Clients
	new func() *Clients
}

func newFakeClients(objs ...runtime.Object) *Clients {
	scheme := runtime.NewScheme()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{
		tcpGVR:       "TenantControlPlaneList",
		dataStoreGVR: "DataStoreList",
	})
	// Server-side apply and discovery as an API server with Kamaji's CRDs
	// serves them (the simple clientset: NewClientset's tracker builds a
	// REST mapper of the whole scheme on every call).
	kubetest.ReactToApply(dyn)
	kc := kubefake.NewSimpleClientset(objs...)
	kubetest.Serve(kc.Discovery(), append(append([]kubetest.Resource(nil), kubetest.Builtin...),
		kubetest.Resource{GVR: tcpGVR, Kind: "TenantControlPlane", Namespaced: true},
		kubetest.Resource{GVR: dataStoreGVR, Kind: "DataStore"})...)
	return &Clients{Kube: kc, Dynamic: dyn}
}

func (f *fakeClusters) connect(kc []byte) (*Clients, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	server, err := kubeconfig.Server(kc)
	if err != nil {
		return nil, err
	}
	if c, ok := f.by[server]; ok {
		return c, nil
	}
	c := newFakeClients()
	f.by[server] = c
	return c, nil
}

func testEnv(t *testing.T) (*Env, *fakeDocker, *fakeKind, *fakeClusters) {
	t.Helper()
	d := &fakeDocker{containers: map[string]docker.Container{}, images: map[string]bool{}}
	k := &fakeKind{docker: d}
	fc := &fakeClusters{by: map[string]*Clients{}}
	sd := state.Dir(t.TempDir())
	if err := sd.Claim(state.RealLab); err != nil {
		t.Fatal(err)
	}
	e := &Env{
		Lab: lab.Default(), State: sd, Docker: d, Kind: k, Helm: &fakeHelm{},
		Connect: fc.connect, Network: "kind", Timeouts: DefaultTimeouts(), Poll: 10 * time.Millisecond,
	}
	return e, d, k, fc
}

// tcpWith is a TenantControlPlane of tenant-a with the given status, as the
// fake management cluster returns it (ci/internal/kube's readiness test
// has its own, for TCPReady's table).
func tcpWith(status map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kamaji.clastix.io/v1alpha1", "kind": "TenantControlPlane",
		"metadata": map[string]any{"name": "tenant-a", "namespace": "tenant-a"}}}
	if status != nil {
		u.Object["status"] = status
	}
	return u
}

func i32(v int32) *int32 { return &v }
