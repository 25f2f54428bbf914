package stages

import (
	"context"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/lab"
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
//
// The steps before each tenant's networking — the worker image, the host's
// facts, every worker started with its images — may run in the background
// while the kamaji or tenants stage runs (ahead.go). They read nothing those
// stages write (no tenant kubeconfig, no tenant client); the management
// IP and the clients cache are behind Env.mu; the owner record exists since
// the cluster stage, so ensureOwner only reads it.

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
	r := s.run
	if r == nil {
		r = newWorkersRun(e)
	}
	if err := e.runBuilt(ctx, stageWorkers, r.steps); err != nil {
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

// tenantWorkers does one tenant's steps of the workers stage.
type tenantWorkers struct {
	run *workersRun
	i   int // the tenant's index in the lab (its pod CIDR)
	t   lab.Tenant
}

// clients are the tenant's clients (Env caches them).
func (tw *tenantWorkers) clients() (*Clients, error) {
	tc, err := tw.run.e.tenantClients(tw.t.Name)
	if err != nil {
		return nil, fail(stageWorkers, "tenant "+tw.t.Name, "", err)
	}
	return tc, nil
}

// start starts the worker with what kind adds for this daemon's host.
func (tw *tenantWorkers) start(ctx context.Context, name string) error {
	r := tw.run
	host := docker.KindNodeHostFor(r.info, workerProxyInputs(r.e, r.net, tw.i))
	return startWorker(ctx, r.e, r.ownerID, tw.t.Name, name, r.img, host)
}

// preload imports the bundle's worker images into the worker once one of
// the preloadsAtOnce slots is free. Before the join: the node's pods (CNI,
// kube-proxy, CoreDNS, konnectivity agent) start as soon as it registers.
func (tw *tenantWorkers) preload(ctx context.Context, stage, name string) error {
	select {
	case tw.run.preloads <- struct{}{}:
	case <-ctx.Done():
		return fail(stageWorkers, "worker "+name, "waiting for its turn to import the image bundle", ctx.Err())
	}
	defer func() { <-tw.run.preloads }()
	if err := tw.run.e.preloadNode(ctx, stage, tw.t.Name, name); err != nil {
		return fail(stageWorkers, "worker "+name, "image bundle", err)
	}
	return nil
}

// networking applies the tenant's kube-proxy and kindnet.
func (tw *tenantWorkers) networking(ctx context.Context) error {
	tc, err := tw.clients()
	if err != nil {
		return err
	}
	return tenantNetworking(ctx, tw.run.e, tc, tw.i, tw.t, tw.run.opts)
}

// joinPrerequisites waits until Kamaji has written what kubeadm join reads.
func (tw *tenantWorkers) joinPrerequisites(ctx context.Context) error {
	tc, err := tw.clients()
	if err != nil {
		return err
	}
	cond, err := tw.run.e.wait(ctx, tw.run.e.Timeouts.TenantReady, "Kamaji's join objects in tenant "+tw.t.Name,
		func(ctx context.Context) (bool, string, error) {
			return joinPrerequisitesPresent(ctx, tc.Kube)
		})
	if err != nil {
		return fail(stageWorkers, "tenant "+tw.t.Name+" join prerequisites", cond, err)
	}
	return nil
}

// join joins the worker.
func (tw *tenantWorkers) join(ctx context.Context, name string) error {
	tc, err := tw.clients()
	if err != nil {
		return err
	}
	return joinWorker(ctx, tw.run.e, tc, tw.t, name, tw.run.opts.ManagementAddress)
}

// nodeReady waits for the worker's Node to be Ready.
func (tw *tenantWorkers) nodeReady(ctx context.Context, name string) error {
	tc, err := tw.clients()
	if err != nil {
		return err
	}
	cond, err := tw.run.e.wait(ctx, tw.run.e.Timeouts.NodeReady, "Node "+name, func(ctx context.Context) (bool, string, error) {
		n, err := tc.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		ok, cond := kube.NodeReady(n)
		return ok, cond, nil
	})
	if err != nil {
		return fail(stageWorkers, "Node "+name+" in tenant "+tw.t.Name, cond, err)
	}
	return nil
}

// proveTunnel proves the tenant's konnectivity tunnel to every worker.
func (tw *tenantWorkers) proveTunnel(ctx context.Context) error {
	tc, err := tw.clients()
	if err != nil {
		return err
	}
	return proveTunnel(ctx, tw.run.e, tc, tw.t)
}
