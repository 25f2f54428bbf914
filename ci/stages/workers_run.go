package stages

import (
	"context"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// Side by side (issue 42): the stage's time goes to waits that use little
// CPU — a worker's systemd booting containerd, kubeadm's discovery and TLS
// bootstrap, the Node turning Ready, the tenant's konnectivity agents — so
// the tenants run at the same time, and inside a tenant its workers start
// and preload at the same time and then join at the same time, each join
// followed by its own Node's Ready wait. kind does the same for its own
// nodes: it creates their containers concurrently (sigs.k8s.io/kind@v0.33.0
// pkg/cluster/internal/providers/docker/provider.go:93) and joins its
// workers concurrently (pkg/cluster/internal/create/actions/kubeadmjoin/
// join.go:103-113).
//
// What stays in order, inside one tenant: all of its workers run before its
// networking is applied (the kindnet manifest is read from its first
// worker), the networking and Kamaji's join objects come before any join
// (pods start as soon as a Node registers; a join before Kamaji's objects
// fails), and the tunnel is proven once all of its Nodes are Ready (the
// agents' DaemonSet counts every worker).
//
// What the goroutines share, and why that is safe:
//   - Env: its clients cache and the management IP are behind Env.mu
//     (clientsFor, managementIP); Lab, Preload and Timeouts are only read.
//   - The owner record: ensureOwner, which may write it, runs once before
//     any goroutine starts; after that it is only read (workerOwned), and
//     the state dir replaces it by renaming a complete file over it.
//   - The tenant's kubeconfig in the state dir: only read (joinWorker).
//   - Docker: each call is its own docker process; the one cache
//     (ImageTransfer) is a sync.Map.
//   - A tenant's clients: client-go's clientsets are safe for concurrent
//     use; each join creates its own bootstrap token (random ID).
//   - Log lines: slog's handlers write each record whole, under their lock.
//   - The summary: built from the lab's order once every tenant is done,
//     so it reads the same whatever finished first.

// preloadsAtOnce bounds how many workers, across all tenants, import the
// bundle's images at the same time. Each import streams a `docker save`
// out of the daemon into a `ctr import` that hashes and unpacks it in the
// node (nodeimage.Load): about a core each. The real lab runs on 2 cores,
// so two at once keep both busy; more only interleave the same work (and
// its memory), so every worker would finish its images late instead of the
// first ones going on to their joins while the rest import. (kind loads
// into all nodes at once, kind v0.33.0 pkg/cmd/kind/load/docker-image/
// docker-image.go:179-193, but from one archive saved once; here every
// node streams its own save.) Starts and joins are not bounded: they
// mostly wait, as kind's do.
const preloadsAtOnce = 2

func (s workersStage) Run(ctx context.Context, e *Env) (string, error) {
	img := e.localImage(e.Lab.Versions.WorkerImage())
	if err := e.Docker.EnsureImage(ctx, img, e.Timeouts.Pull); err != nil {
		return "", fail(stageWorkers, "image "+img, "not present on the daemon", err)
	}
	// Before any goroutine: it may write the owner record, which the
	// workers' ownership checks read.
	owner, err := e.ensureOwner()
	if err != nil {
		return "", fail(stageWorkers, "state dir "+string(e.State), "owner record", err)
	}
	opts, err := e.renderOptions(ctx)
	if err != nil {
		return "", fail(stageWorkers, "management node", "", err)
	}
	info, err := e.Docker.Info(ctx)
	if err != nil {
		return "", fail(stageWorkers, "Docker daemon", "", err)
	}
	net, err := e.Docker.InspectNetwork(ctx, e.Network)
	if err != nil {
		return "", fail(stageWorkers, "network "+e.Network, "", err)
	}
	preloads := make(chan struct{}, preloadsAtOnce)
	err = sideBySide(ctx, e.log(), stageWorkers, len(e.Lab.Tenants), func(ctx context.Context, i int) error {
		t := e.Lab.Tenants[i]
		tc, err := e.tenantClients(t.Name)
		if err != nil {
			return fail(stageWorkers, "tenant "+t.Name, "", err)
		}
		r := &tenantWorkers{e: e, i: i, t: t, tc: tc, opts: opts, ownerID: owner.ID, img: img,
			host: docker.KindNodeHostFor(info, workerProxyInputs(e, net, i)), preloads: preloads}
		return r.up(ctx)
	})
	if err != nil {
		return "", err
	}
	// Every worker is Ready once no tenant failed: listed in the lab's order.
	var ready []string
	for _, t := range e.Lab.Tenants {
		for _, w := range t.Workers {
			ready = append(ready, e.Lab.NodeName(t.Name, w.Name))
		}
	}
	return "joined, Ready and reached through their tenant's konnectivity tunnel: " + strings.Join(ready, ", "), nil
}

// tenantWorkers brings up one tenant's workers.
type tenantWorkers struct {
	e       *Env
	i       int // the tenant's index in the lab (its pod CIDR)
	t       lab.Tenant
	tc      *Clients
	opts    render.Options
	ownerID string
	img     string
	host    docker.KindNodeHost
	// preloads holds one token per image preload running (preloadsAtOnce),
	// shared by every tenant.
	preloads chan struct{}
}

func (r *tenantWorkers) up(ctx context.Context) error {
	e, t := r.e, r.t
	var nodes []string
	for _, w := range t.Workers {
		nodes = append(nodes, e.Lab.NodeName(t.Name, w.Name))
	}
	if err := sideBySide(ctx, e.log(), stageWorkers, len(nodes), func(ctx context.Context, j int) error {
		return r.start(ctx, nodes[j])
	}); err != nil {
		return err
	}
	if err := tenantNetworking(ctx, e, r.tc, r.i, t, r.opts); err != nil {
		return err
	}
	cond, err := e.wait(ctx, e.Timeouts.TenantReady, "Kamaji's join objects in tenant "+t.Name, func(ctx context.Context) (bool, string, error) {
		return joinPrerequisitesPresent(ctx, r.tc.Kube)
	})
	if err != nil {
		return fail(stageWorkers, "tenant "+t.Name+" join prerequisites", cond, err)
	}
	if err := sideBySide(ctx, e.log(), stageWorkers, len(nodes), func(ctx context.Context, j int) error {
		return r.join(ctx, nodes[j])
	}); err != nil {
		return err
	}
	return proveTunnel(ctx, e, r.tc, t)
}

// start starts the worker and imports the bundle's images into it.
func (r *tenantWorkers) start(ctx context.Context, name string) error {
	if err := startWorker(ctx, r.e, r.ownerID, r.t.Name, name, r.img, r.host); err != nil {
		return err
	}
	return r.preload(ctx, name)
}

// preload imports the bundle's worker images into the worker once one of
// the preloadsAtOnce slots is free. Before the join: the node's pods (CNI,
// kube-proxy, CoreDNS, konnectivity agent) start as soon as it registers.
func (r *tenantWorkers) preload(ctx context.Context, name string) error {
	if r.e.Preload == nil {
		return nil
	}
	select {
	case r.preloads <- struct{}{}:
	case <-ctx.Done():
		return fail(stageWorkers, "worker "+name, "waiting for its turn to import the image bundle", ctx.Err())
	}
	defer func() { <-r.preloads }()
	if err := r.e.preloadNode(ctx, stageWorkers, r.t.Name, name); err != nil {
		return fail(stageWorkers, "worker "+name, "image bundle", err)
	}
	return nil
}

// join joins the worker and waits for its Node to be Ready.
func (r *tenantWorkers) join(ctx context.Context, name string) error {
	e, t := r.e, r.t
	if err := joinWorker(ctx, e, r.tc, t, name, r.opts.ManagementAddress); err != nil {
		return err
	}
	cond, err := e.wait(ctx, e.Timeouts.NodeReady, "Node "+name, func(ctx context.Context) (bool, string, error) {
		n, err := r.tc.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		ok, cond := kube.NodeReady(n)
		return ok, cond, nil
	})
	if err != nil {
		return fail(stageWorkers, "Node "+name+" in tenant "+t.Name, cond, err)
	}
	return nil
}
