package stages

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/manifests"
)

// workersStage starts one kind-style node container per worker, joins it to
// its tenant with kubeadm, and installs the tenant's CNI (kindnet from the
// node image) and kube-proxy (with the conntrack fix).
type workersStage struct{}

func (workersStage) Name() string { return stageWorkers }

// workerLabels mark a worker container as the lab's and the tenant's, for
// diagnostics; ownedWorkerLabels adds the owner ID `labctl down` and every
// exec into an existing worker check (owner.go).
func workerLabels(l *lab.Lab, tenant string) map[string]string {
	return map[string]string{render.LabelLab: l.Name, render.LabelTenant: tenant}
}

func (workersStage) Plan(e *Env) ([]string, error) {
	img := e.Lab.Versions.WorkerImage()
	out := []string{
		fmt.Sprintf("docker image inspect %s || docker pull %s (give up after %s)", img, img, e.Timeouts.Pull),
		fmt.Sprintf("read the owner ID from %s (a new random one when absent); a worker container that already exists is used only when it carries labels %s=%s, %s=<its tenant> and %s=<the owner ID>, otherwise the stage stops before any docker exec", e.State.OwnerRecordPath(), render.LabelLab, e.Lab.Name, render.LabelTenant, labelOwner),
	}
	if len(e.Lab.Tenants) > 1 {
		out = append(out, "the tenants below run side by side; the first failure stops the others and is the one reported")
	}
	mgmt := render.PlaceholderManagementAddress
	for i, t := range e.Lab.Tenants {
		cm, ds, err := render.KubeProxy(e.Lab, t.Name, e.Reach.renderOptions(mgmt))
		if err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("tenant %s: start its workers side by side, each until its containerd is active (%s)", t.Name, e.Timeouts.NodeReady))
		if e.Preload != nil {
			out = append(out, fmt.Sprintf("tenant %s: import the bundle's images into each worker as soon as its containerd is active, at most %d workers of the lab at once", t.Name, preloadsAtOnce))
		}
		for _, w := range t.Workers {
			name := e.Lab.NodeName(t.Name, w.Name)
			out = append(out, "docker "+strings.Join(docker.RunArgs(docker.KindNodeSpec(name, img, e.Network, ownedWorkerLabels(e, t.Name, "<owner ID>"), docker.KindNodeHost{})), " "))
		}
		out = append(out, "+ on each docker run, what kind adds for the host, from docker info and the environment: --userns=host under userns-remap, --device /dev/fuse on rootless Docker, --volume /dev/mapper:/dev/mapper on btrfs/zfs/devicemapper/xfs storage, HTTP(S)_PROXY/NO_PROXY when set (NO_PROXY + the network's subnets, the tenant's CIDRs, the node names)")
		out = append(out,
			fmt.Sprintf("apply to tenant %s: %s (static), ConfigMap %s/%s (conntrack.maxPerCore: 0), DaemonSet %s/%s", t.Name, manifests.TenantKubeProxyRBAC, cm.Namespace, cm.Name, ds.Namespace, ds.Name),
			fmt.Sprintf("apply to tenant %s: kindnet from %s of the first worker, {{ .PodSubnet }} = %s, CONTROL_PLANE_ENDPOINT = %s:%d", t.Name, kindnetManifestPath, render.TenantPodCIDR(i), mgmt, t.Ports.APIServer),
		)
		var prereq []string
		for _, o := range joinPrerequisites() {
			prereq = append(prereq, o.String())
		}
		out = append(out, fmt.Sprintf("wait in tenant %s until Kamaji has written what kubeadm join reads (%s) (%s)", t.Name, strings.Join(prereq, ", "), e.Timeouts.TenantReady))
		out = append(out, fmt.Sprintf("tenant %s: join its workers side by side, as kind joins its own; each worker:", t.Name))
		for _, w := range t.Workers {
			name := e.Lab.NodeName(t.Name, w.Name)
			conf, err := render.UncheckedJoinConfiguration(render.JoinSpec{
				Endpoint: fmt.Sprintf("%s:%d", mgmt, t.Ports.APIServer), Token: "<new bootstrap token>",
				CACertHash: "sha256:<tenant CA public key hash>", NodeName: name, NodeIP: "<IPv4 of " + name + " on " + e.Network + ">",
			})
			if err != nil {
				return nil, err
			}
			out = append(out,
				fmt.Sprintf("create Secret kube-system/bootstrap-token-<id> in tenant %s (ttl 1h)", t.Name),
				fmt.Sprintf("docker exec %s %s (every time: the Node is absent, so anything there is a join that did not finish)", name, strings.Join(resetCommand, " ")),
				fmt.Sprintf("docker exec -i %s sh -c '%s' <<EOF\n%sEOF", name, writeJoinConfigScript, conf),
				fmt.Sprintf("docker exec %s %s (give up after %s, kubeadm's own discovery, kubelet health and TLS bootstrap waits and a margin)", name, strings.Join(joinCommand, " "), e.joinTimeout()),
				fmt.Sprintf("wait Node %s Ready in tenant %s (%s)", name, t.Name, e.Timeouts.NodeReady),
			)
		}
		out = append(out, tunnelPlan(e, t)...)
	}
	return out, nil
}

func (workersStage) Check(ctx context.Context, e *Env) (bool, string, error) {
	var names []string
	for _, t := range e.Lab.Tenants {
		tc, err := e.tenantClients(t.Name)
		if err != nil {
			return false, "", nil
		}
		for _, w := range t.Workers {
			name := e.Lab.NodeName(t.Name, w.Name)
			c, err := e.Docker.InspectContainer(ctx, name)
			if err != nil || !c.State.Running || e.workerOwned(c, t.Name) != nil {
				return false, "", nil
			}
			n, err := tc.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, "", nil
			}
			if ok, _ := kube.NodeReady(n); !ok {
				return false, "", nil
			}
			if ok, _, err := tunnelRoundTrip(ctx, tc, name); err != nil || !ok {
				return false, "", nil
			}
			names = append(names, name)
		}
	}
	return true, "nodes Ready, reached through their tenant's konnectivity tunnel: " + strings.Join(names, ", "), nil
}
