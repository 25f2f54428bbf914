package stages

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/internal/kubeconfig"
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
	mgmt := render.PlaceholderManagementAddress
	for i, t := range e.Lab.Tenants {
		cm, ds, err := render.KubeProxy(e.Lab, t.Name, e.Reach.renderOptions(mgmt))
		if err != nil {
			return nil, err
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

func (s workersStage) Run(ctx context.Context, e *Env) (string, error) {
	img := e.localImage(e.Lab.Versions.WorkerImage())
	if err := e.Docker.EnsureImage(ctx, img, e.Timeouts.Pull); err != nil {
		return "", fail(stageWorkers, "image "+img, "not present on the daemon", err)
	}
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
	var ready []string
	for i, t := range e.Lab.Tenants {
		tc, err := e.tenantClients(t.Name)
		if err != nil {
			return "", fail(stageWorkers, "tenant "+t.Name, "", err)
		}
		host := docker.KindNodeHostFor(info, workerProxyInputs(e, net, i))
		for _, w := range t.Workers {
			if err := startWorker(ctx, e, owner.ID, t.Name, e.Lab.NodeName(t.Name, w.Name), img, host); err != nil {
				return "", err
			}
			// Before the join: the node's pods (CNI, kube-proxy, CoreDNS,
			// konnectivity agent) start as soon as it registers.
			if err := e.preloadNode(ctx, stageWorkers, t.Name, e.Lab.NodeName(t.Name, w.Name)); err != nil {
				return "", fail(stageWorkers, "worker "+e.Lab.NodeName(t.Name, w.Name), "image bundle", err)
			}
		}
		if err := tenantNetworking(ctx, e, tc, i, t, opts); err != nil {
			return "", err
		}
		cond, err := e.wait(ctx, e.Timeouts.TenantReady, "Kamaji's join objects in tenant "+t.Name, func(ctx context.Context) (bool, string, error) {
			return joinPrerequisitesPresent(ctx, tc.Kube)
		})
		if err != nil {
			return "", fail(stageWorkers, "tenant "+t.Name+" join prerequisites", cond, err)
		}
		for _, w := range t.Workers {
			if err := joinWorker(ctx, e, tc, t, e.Lab.NodeName(t.Name, w.Name), opts.ManagementAddress); err != nil {
				return "", err
			}
		}
		for _, w := range t.Workers {
			name := e.Lab.NodeName(t.Name, w.Name)
			cond, err := e.wait(ctx, e.Timeouts.NodeReady, "Node "+name, func(ctx context.Context) (bool, string, error) {
				n, err := tc.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false, "", err
				}
				ok, cond := kube.NodeReady(n)
				return ok, cond, nil
			})
			if err != nil {
				return "", fail(stageWorkers, "Node "+name+" in tenant "+t.Name, cond, err)
			}
			ready = append(ready, name)
		}
		if err := proveTunnel(ctx, e, tc, t); err != nil {
			return "", err
		}
	}
	return "joined, Ready and reached through their tenant's konnectivity tunnel: " + strings.Join(ready, ", "), nil
}

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
		return failf(stageWorkers, "container "+name, "state "+c.State.Status, "exists but is not running: remove it (`labctl down`) and run again")
	case docker.IsNotFound(err):
		e.log().Info("starting worker", "container", name, "host additions", host.Describe())
		if _, err := e.Docker.RunContainer(ctx, docker.KindNodeSpec(name, img, e.Network, ownedWorkerLabels(e, tenant, ownerID), host)); err != nil {
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

// joinWorker joins the node unless the tenant already has it.
func joinWorker(ctx context.Context, e *Env, tc *Clients, t lab.Tenant, name, mgmtIP string) error {
	if _, err := tc.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); err == nil {
		return nil
	} else if !apierrors.IsNotFound(err) {
		return fail(stageWorkers, "Node "+name+" in tenant "+t.Name, "", err)
	}
	// kubeadm reset -f below wipes whatever Kubernetes node runs here: only
	// in a worker labctl started for this tenant from this state dir, checked
	// before anything is written for it.
	c, err := e.Docker.InspectContainer(ctx, name)
	if err != nil {
		return fail(stageWorkers, "container "+name, "", err)
	}
	if err := e.workerOwned(c, t.Name); err != nil {
		return fail(stageWorkers, "container "+name, "", err)
	}
	kc, err := os.ReadFile(e.State.Kubeconfig(t.Name))
	if err != nil {
		return fail(stageWorkers, "tenant "+t.Name+" kubeconfig", "", err)
	}
	ca, err := kubeconfig.CA(kc)
	if err != nil {
		return fail(stageWorkers, "tenant "+t.Name+" kubeconfig", "", err)
	}
	hash, err := kubeconfig.CACertHash(ca)
	if err != nil {
		return fail(stageWorkers, "tenant "+t.Name+" CA", "", err)
	}
	id, secret, err := kubeconfig.NewBootstrapToken(rand.Reader)
	if err != nil {
		return fail(stageWorkers, "bootstrap token", "", err)
	}
	if _, err := tc.Kube.CoreV1().Secrets("kube-system").Create(ctx, kubeconfig.BootstrapTokenSecret(id, secret, time.Now().Add(time.Hour)), metav1.CreateOptions{}); err != nil {
		return fail(stageWorkers, "Secret kube-system/bootstrap-token-"+id+" in tenant "+t.Name, "", err)
	}
	ip, err := docker.ContainerIPv4(c, e.Network)
	if err != nil {
		return fail(stageWorkers, "container "+name, "", err)
	}
	conf, err := render.JoinConfiguration(render.JoinSpec{Endpoint: fmt.Sprintf("%s:%d", mgmtIP, t.Ports.APIServer), Token: id + "." + secret, CACertHash: hash, NodeName: name, NodeIP: ip.String()})
	if err != nil {
		return fail(stageWorkers, "join configuration for "+name, "", err)
	}
	// Nothing run here changes the host's kernel (see "The host's kernel"
	// below).
	// Every time: the Node is absent, so anything kubeadm left here is from
	// an attempt that did not finish (kubeadm writes pki/ca.crt and starts
	// the kubelet before the TLS bootstrap ends), and a join on top of it
	// fails. A reset that fails is reported with the join's failure.
	resetOut, resetErr := e.Docker.Exec(ctx, name, nil, resetCommand...)
	if out, err := e.Docker.Exec(ctx, name, bytes.NewReader(conf), "sh", "-c", writeJoinConfigScript); err != nil {
		return fail(stageWorkers, joinConfigPath+" in "+name, lastLines(string(out), 1), err)
	}
	jctx, cancel := context.WithTimeout(ctx, e.joinTimeout())
	defer cancel()
	if out, err := e.Docker.Exec(jctx, name, nil, joinCommand...); err != nil {
		cond := lastLines(string(out), 3)
		if resetErr != nil {
			cond = fmt.Sprintf("%s failed before it (%v: %s); %s", strings.Join(resetCommand, " "), resetErr, lastLines(string(resetOut), 1), cond)
		}
		return fail(stageWorkers, "kubeadm join of "+name+" to tenant "+t.Name, cond, err)
	}
	return nil
}

// joinTimeout is Timeouts.Join, or defaultJoinTimeout when unset: a zero value
// must not cut every join off at once.
func (e *Env) joinTimeout() time.Duration {
	if e.Timeouts.Join > 0 {
		return e.Timeouts.Join
	}
	return defaultJoinTimeout
}

// The host's kernel: a worker is privileged and mounts the host's
// /lib/modules, so a command run in it acts on the host's kernel. The join
// runs none: no `swapoff -a` (it would turn off the host's swap devices)
// and no `modprobe br_netfilter` (it would load a module into the host's
// kernel), and the lab needs neither.
//
//   - kubeadm checks swap and /proc/sys/net/bridge/bridge-nf-call-iptables
//     only in its preflight phase, which the join skips
//     (render.JoinSkipPhases, as kind v0.33.0 does for its own nodes); the
//     kubelet a join starts reads the tenant's kubelet-config ConfigMap,
//     which Kamaji 26.8.2-edge writes with the TenantControlPlane's
//     configurationJSONPatches applied (internal/resources/
//     kubeadm_phases.go:158-168, internal/kubeadm/uploadconfig.go:75-105),
//     and the lab's patches set failSwapOn: false
//     (render.kindKubeletPatches), as kind does
//     (pkg/cluster/internal/kubeadm/config.go:602).
//   - br_netfilter is what Docker's bridge driver loads on the host itself
//     when it sets up iptables for a bridge network such as the one the
//     workers are on (moby v20.10.24 vendor/github.com/docker/libnetwork/
//     drivers/bridge/bridge.go:381-386; docker-v29.7.2
//     daemon/libnetwork/drivers/bridge/setup_bridgenetfiltering.go:48-54),
//     and kind's nodes, which the workers are like, never load it (kind's
//     tree at v0.33.0-alpha, the newest tag of the snapshot, names no
//     br_netfilter).
//
// A host without it is the host's to fix (its Docker reports it), not a
// step the lab takes silently.

// resetCommand undoes whatever an earlier kubeadm join left in a worker
// (kubeadm v1.36.3 cmd/kubeadm/app/cmd/reset.go: -f is --force, no prompt).
var resetCommand = []string{"kubeadm", "reset", "-f"}

// lastLines keeps the tail of command output for a condition.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
