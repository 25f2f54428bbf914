package stages

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/manifests"
)

// One worker's container and its tenant's networking: what the workers
// stage does before the joins.

// workerProxyInputs are what the i-th tenant's workers' proxy variables
// are made of: labctl's environment, the network's subnets, every node of
// the lab and the tenant's service and pod CIDRs (kind adds its own
// cluster's).
func workerProxyInputs(e *Env, net docker.Network, i int) docker.ProxyInputs {
	in := docker.ProxyInputs{Getenv: e.Getenv, ClusterCIDRs: []string{render.TenantServiceCIDR, render.TenantPodCIDR(i)}}
	if in.Getenv == nil {
		in.Getenv = os.Getenv
	}
	for _, c := range net.IPAM.Config {
		if c.Subnet != "" {
			in.Subnets = append(in.Subnets, c.Subnet)
		}
	}
	in.NodeNames = append(in.NodeNames, e.controlPlaneContainer())
	for _, t := range e.Lab.Tenants {
		for _, w := range t.Workers {
			in.NodeNames = append(in.NodeNames, e.Lab.NodeName(t.Name, w.Name))
		}
	}
	return in
}

// startWorker starts the node container unless it runs, and waits for its
// containerd (systemd boots it). host carries kind's additions for the
// Docker host. A container of that name that labctl did not start for this
// tenant from this state dir is refused before anything runs in it.
func startWorker(ctx context.Context, e *Env, ownerID, tenant, name, img string, host docker.KindNodeHost) error {
	c, err := e.Docker.InspectContainer(ctx, name)
	if err == nil {
		if err := e.workerOwned(c, tenant); err != nil {
			return fail(stageWorkers, "container "+name, "", err)
		}
	}
	switch {
	case err == nil && c.State.Running:
	case err == nil:
		return failf(stageWorkers, "container "+name, "state "+c.State.Status,
			"exists but is not running: remove it (`labctl down`) and run again")
	case docker.IsNotFound(err):
		e.log().Info("starting worker", "container", name, "host additions", host.Describe())
		spec := docker.KindNodeSpec(name, img, e.Network, ownedWorkerLabels(e, tenant, ownerID), host)
		if _, err := e.Docker.RunContainer(ctx, spec); err != nil {
			return fail(stageWorkers, "container "+name, "", err)
		}
	default:
		return fail(stageWorkers, "container "+name, "", err)
	}
	cond, err := e.wait(ctx, e.Timeouts.NodeReady, "containerd in "+name, func(ctx context.Context) (bool, string, error) {
		out, err := e.Docker.Exec(ctx, name, nil, "systemctl", "is-active", "containerd")
		st := strings.TrimSpace(string(out))
		return err == nil && st == "active", "containerd " + st, nil
	})
	if err != nil {
		return fail(stageWorkers, "container "+name, cond, err)
	}
	return nil
}

// tenantNetworking applies kube-proxy (RBAC, config with the conntrack fix,
// DaemonSet) and kindnet to the tenant.
func tenantNetworking(ctx context.Context, e *Env, tc *Clients, i int, t lab.Tenant, opts render.Options) error {
	rbac, err := manifests.Read(manifests.TenantKubeProxyRBAC)
	if err != nil {
		return fail(stageWorkers, "kube-proxy RBAC", "", err)
	}
	objs, err := kube.DecodeManifests(rbac)
	if err != nil {
		return fail(stageWorkers, "kube-proxy RBAC", "", err)
	}
	cm, ds, err := render.KubeProxy(e.Lab, t.Name, opts)
	if err != nil {
		return fail(stageWorkers, "kube-proxy", "", err)
	}
	all := []any{}
	for _, o := range objs {
		all = append(all, o)
	}
	all = append(all, cm, ds)
	if len(t.Workers) == 0 {
		return nil
	}
	first := e.Lab.NodeName(t.Name, t.Workers[0].Name)
	raw, err := e.Docker.Exec(ctx, first, nil, "cat", kindnetManifestPath)
	if err != nil {
		return fail(stageWorkers, "kindnet manifest in "+first, "", err)
	}
	cni, err := kindnetObjects(raw, render.TenantPodCIDR(i), fmt.Sprintf("%s:%d", opts.ManagementAddress, t.Ports.APIServer))
	if err != nil {
		return fail(stageWorkers, "kindnet manifest in "+first, "", err)
	}
	for _, o := range cni {
		all = append(all, o)
	}
	for _, o := range all {
		if _, err := tc.serverSideApplier().Apply(ctx, o); err != nil {
			return fail(stageWorkers, "tenant "+t.Name+" networking", "", err)
		}
	}
	return nil
}
