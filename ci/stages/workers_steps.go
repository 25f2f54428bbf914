package stages

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
	"github.com/gpu-lab/gpu-lab/manifests"
)

// workersRun is one run of the workers stage: its steps, and what its first
// steps read for the later ones (read once, before any tenant starts).
type workersRun struct {
	e        *Env
	img      string // the worker image as the daemon knows it
	ownerID  string
	opts     render.Options
	info     docker.DaemonInfo
	net      docker.Network
	preloads chan struct{} // one token per image preload running (preloadsAtOnce)

	built      sync.Once
	all, early steps.Step // the stage's steps; those of them the runner may begin ahead (workersStage.ahead)
	err        error
}

func newWorkersRun(e *Env) *workersRun {
	return &workersRun{e: e, preloads: make(chan struct{}, preloadsAtOnce)}
}

// steps are the stage's steps: what its dry-run prints and its Run does.
func (r *workersRun) steps() (steps.Step, error) {
	r.built.Do(r.build)
	return r.all, r.err
}

// aheadSteps are the steps of steps that need no tenant control plane:
// the worker image, the host's facts, every worker started with its images
// and the hami stage's (the same steps.Once steps as in steps, so done
// once).
func (r *workersRun) aheadSteps() (steps.Step, error) {
	r.built.Do(r.build)
	return r.early, r.err
}

func (r *workersRun) build() {
	e := r.e
	img := e.Lab.Versions.WorkerImage()
	var tenants, early []steps.Step
	for i, t := range e.Lab.Tenants {
		ahead, all, err := r.tenantSteps(i, t)
		if err != nil {
			r.err = err
			return
		}
		early, tenants = append(early, ahead), append(tenants, all)
	}
	host := steps.Once(steps.Seq(
		steps.Do(r.ensureImage,
			fmt.Sprintf("docker image inspect %s || docker pull %s (give up after %s)", img, img, e.Timeouts.Pull)),
		steps.Do(r.readHost,
			fmt.Sprintf("read the owner ID from %s (a new random one when absent); a worker container that already "+
				"exists is used only when it carries labels %s=%s, %s=<its tenant> and %s=<the owner ID>, "+
				"otherwise the stage stops before any docker exec",
				e.State.OwnerRecordPath(), render.LabelLab, e.Lab.Name, render.LabelTenant, owner.Label),
			fmt.Sprintf("docker info, docker network inspect %s: what kind adds to each docker run for the host (below)", e.Network)),
	))
	r.all = steps.Seq(host, tenantsSideBySide(tenants))
	r.early = steps.Seq(host, steps.SideBySide("", early...))
}

// ensureImage makes sure the daemon has the worker image.
func (r *workersRun) ensureImage(ctx context.Context) error {
	r.img = r.e.localImage(r.e.Lab.Versions.WorkerImage())
	if err := r.e.Docker.EnsureImage(ctx, r.img, r.e.Timeouts.Pull); err != nil {
		return fail(stageWorkers, "image "+r.img, "not present on the daemon", err)
	}
	return nil
}

// readHost reads what every tenant's steps share: the owner record (which
// it may write, so before any goroutine: the workers' ownership checks
// read it), the render options, the daemon and its network.
func (r *workersRun) readHost(ctx context.Context) error {
	e := r.e
	rec, err := e.ensureOwner()
	if err != nil {
		return fail(stageWorkers, "state dir "+string(e.State), "owner record", err)
	}
	r.ownerID = rec.ID
	if r.opts, err = e.renderOptions(ctx); err != nil {
		return fail(stageWorkers, "management node", "", err)
	}
	if r.info, err = e.Docker.Info(ctx); err != nil {
		return fail(stageWorkers, "Docker daemon", "", err)
	}
	if r.net, err = e.Docker.InspectNetwork(ctx, e.Network); err != nil {
		return fail(stageWorkers, "network "+e.Network, "", err)
	}
	return nil
}

// tenantSteps are the i-th tenant's steps: its workers started side by
// side, its networking, Kamaji's join objects awaited, its workers joined
// side by side, its tunnel proven, and beside all but the start the hami
// stage's images imported into its workers. early is what the runner may
// begin ahead: the start and that import (each done once: steps.Once).
func (r *workersRun) tenantSteps(i int, t lab.Tenant) (early, all steps.Step, err error) {
	e := r.e
	mgmt := render.PlaceholderManagementAddress
	tw := &tenantWorkers{run: r, i: i, t: t}
	var starts, joins, hamis []steps.Step
	for _, w := range t.Workers {
		start, join, hami, err := tw.workerSteps(e.Lab.NodeName(t.Name, w.Name))
		if err != nil {
			return early, all, err
		}
		starts, joins, hamis = append(starts, start), append(joins, join), append(hamis, hami)
	}
	cm, ds, err := render.KubeProxy(e.Lab, t.Name, e.Reach.renderOptions(mgmt))
	if err != nil {
		return early, all, err
	}
	var prereq []string
	for _, o := range joinPrerequisites() {
		prereq = append(prereq, o.String())
	}
	start := steps.Once(steps.SideBySide(fmt.Sprintf("tenant %s: start its workers side by side, each until its containerd is active (%s)",
		t.Name, e.Timeouts.NodeReady), starts...))
	// The hami stage's images (HAMi's, certgen's, the mock NVML library's)
	// go in with the worker's own, not in the hami stage: importing them
	// there was that stage's largest serial block (31.6–34.8 s of its
	// 57–65 s); begun in the background they cost the hami stage 0.5 s
	// (ci/hack/rehearsal/testdata/runs/2026-12-08-workers-ahead).
	var hami steps.Step
	if e.Preload != nil && len(e.Preload.preloadFor(stageHAMi, "", images.Worker)) > 0 {
		hami = steps.Once(steps.SideBySide(fmt.Sprintf("tenant %s: beside its networking, joins and tunnel (above), the hami "+
			"stage's images go into its workers (the hami stage then finds them there):", t.Name), hamis...))
	}
	rest := steps.Seq(
		steps.Do(tw.networking,
			fmt.Sprintf("apply to tenant %s: %s (static), ConfigMap %s/%s (conntrack.maxPerCore: 0), DaemonSet %s/%s",
				t.Name, manifests.TenantKubeProxyRBAC, cm.Namespace, cm.Name, ds.Namespace, ds.Name),
			fmt.Sprintf("apply to tenant %s: kindnet from %s of the first worker, {{ .PodSubnet }} = %s, CONTROL_PLANE_ENDPOINT = %s:%d",
				t.Name, kindnetManifestPath, render.TenantPodCIDR(i), mgmt, t.Ports.APIServer)),
		steps.Do(tw.joinPrerequisites,
			fmt.Sprintf("wait in tenant %s until Kamaji has written what kubeadm join reads (%s) (%s)",
				t.Name, strings.Join(prereq, ", "), e.Timeouts.TenantReady)),
		steps.SideBySide(fmt.Sprintf("tenant %s: join its workers side by side, as kind joins its own; each worker:", t.Name), joins...),
		steps.Do(tw.proveTunnel, tunnelPlan(e, t)...),
	)
	return steps.Seq(start, hami), steps.Seq(start, steps.SideBySide("", rest, hami)), nil
}

// workerSteps are one worker's start (with its image preload), join (with
// its Node's Ready wait) and the import of the hami stage's images into it
// (the zero step without a bundle).
func (tw *tenantWorkers) workerSteps(name string) (start, join, hami steps.Step, err error) {
	e, t := tw.run.e, tw.t
	mgmt := render.PlaceholderManagementAddress
	spec := docker.KindNodeSpec(name, e.Lab.Versions.WorkerImage(), e.Network, ownedWorkerLabels(e, t.Name, "<owner ID>"),
		docker.KindNodeHost{})
	start = steps.Do(func(ctx context.Context) error { return tw.start(ctx, name) },
		"docker "+strings.Join(docker.RunArgs(spec), " "),
		"+ what kind adds for the host, from docker info and the environment: --userns=host under "+
			"userns-remap, --device /dev/fuse on rootless Docker, --volume /dev/mapper:/dev/mapper on "+
			"btrfs/zfs/devicemapper/xfs storage, HTTP(S)_PROXY/NO_PROXY when set (NO_PROXY + the "+
			"network's subnets, the tenant's CIDRs, the node names)")
	if e.Preload != nil {
		start = steps.Seq(start, steps.Do(func(ctx context.Context) error { return tw.preload(ctx, stageWorkers, name) },
			fmt.Sprintf("import the bundle's images into %s, at most %d workers of the lab at once", name, preloadsAtOnce)))
		if refs := e.Preload.preloadFor(stageHAMi, "", images.Worker); len(refs) > 0 {
			hami = steps.Do(func(ctx context.Context) error { return tw.preload(ctx, stageHAMi, name) },
				fmt.Sprintf("import %s into %s, at most %d workers of the lab at once", strings.Join(refs, " "), name, preloadsAtOnce))
		}
	}
	conf, err := render.UncheckedJoinConfiguration(render.JoinSpec{
		Endpoint: fmt.Sprintf("%s:%d", mgmt, t.Ports.APIServer), Token: "<new bootstrap token>",
		CACertHash: "sha256:<tenant CA public key hash>", NodeName: name, NodeIP: "<IPv4 of " + name + " on " + e.Network + ">",
	})
	if err != nil {
		return start, join, hami, err
	}
	join = steps.Seq(
		steps.Do(func(ctx context.Context) error { return tw.join(ctx, name) },
			fmt.Sprintf("create Secret kube-system/bootstrap-token-<id> in tenant %s (ttl 1h), unless Node %s is there", t.Name, name),
			fmt.Sprintf("docker exec %s %s (every time: the Node is absent, so anything there is a join that did "+
				"not finish)", name, strings.Join(resetCommand, " ")),
			fmt.Sprintf("docker exec -i %s sh -c '%s' <<EOF\n%sEOF", name, writeJoinConfigScript, conf),
			fmt.Sprintf("docker exec %s %s (give up after %s, kubeadm's own discovery, kubelet health and TLS "+
				"bootstrap waits and a margin)", name, strings.Join(joinCommand, " "), e.joinTimeout())),
		steps.Do(func(ctx context.Context) error { return tw.nodeReady(ctx, name) },
			fmt.Sprintf("wait Node %s Ready in tenant %s (%s)", name, t.Name, e.Timeouts.NodeReady)),
	)
	return start, join, hami, nil
}
