package stages

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/internal/nodeimage"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// gpusStage runs the bind finalizer in each tenant (which keeps the GPU
// registration the hami stage wrote asserted), then holds the lab's two
// readiness gates, so no suite starts on a lab that would fail it for want
// of registration:
//   - every worker's Node has in status.allocatable the four GPU resources
//     of the lab's inventory (gpus.Advertised), which the kubelet admits GPU
//     pods against; a wrong or missing one fails the stage naming the
//     tenant, worker, Node, resource, want and got;
//   - HAMi's scheduler reports every card in its metrics, so HAMi's Filter
//     no longer answers "node unregistered".
type gpusStage struct{}

func (gpusStage) Name() string { return stageGPUs }

func (gpusStage) Plan(e *Env) ([]string, error) {
	var out []string
	out = append(out,
		fmt.Sprintf("check %s is a static linux binary; docker import a one-file rootfs (/labctl, %s) as %s:<sha256 of the binary>", labctlPath(e), nodeimage.ImageChanges[0], finalizerImageRepo),
	)
	for _, t := range e.Lab.Tenants {
		for _, w := range t.Workers {
			node := e.Lab.NodeName(t.Name, w.Name)
			out = append(out, fmt.Sprintf("docker save %s:<tag> | docker exec -i %s %s (--local unless the node's ctr is older than 1.7, from docker exec %s ctr --version; the snapshotter from docker exec %s %s)", finalizerImageRepo, node,
				strings.Join(nodeimage.ContainerdImportCommand("<snapshotter>", "<daemon's platform>", true), " "), node, node, strings.Join(nodeimage.ContainerdConfigDumpCommand, " ")))
		}
		objs := finalizerObjects(e.Lab, t.Name, finalizerImageRepo+":<tag>", []byte("<lab.yaml>"))
		var names []string
		for _, o := range objs {
			u, err := kube.ToUnstructured(o)
			if err != nil {
				return nil, err
			}
			names = append(names, kube.ObjectName(u))
		}
		out = append(out,
			fmt.Sprintf("tenant %s: apply %s (runs `labctl finalizer --lab %s --tenant %s`)", t.Name, strings.Join(names, ", "), finalizerLabPath, t.Name),
			fmt.Sprintf("tenant %s: wait Deployment %s/%s available, then each worker's Node allocatable %s, %s, %s and %s equal to the inventory's, then GET services/%s:<metrics port>/proxy/metrics until %s lists every card UUID (device_uuid)",
				t.Name, finalizerNamespace, finalizerName, gpus.ResourceGPU, gpus.ResourceGPUMem, gpus.ResourceGPUCores, gpus.ResourceGPUMemPercent, hamiScheduler, gpus.MetricMemoryLimit),
		)
	}
	return out, nil
}

func labctlPath(e *Env) string {
	if e.LabctlBinary != "" {
		return e.LabctlBinary
	}
	p, err := os.Executable()
	if err != nil {
		return "labctl"
	}
	return p
}

// wantCards lists the card UUIDs of a tenant.
func wantCards(e *Env, tenant string) []string {
	var out []string
	t := e.Lab.Tenant(tenant)
	for _, w := range t.Workers {
		for _, d := range gpus.Devices(e.Lab, tenant, w) {
			out = append(out, d.ID)
		}
	}
	return out
}

func (gpusStage) Check(ctx context.Context, e *Env) (bool, string, error) {
	bin, err := os.ReadFile(labctlPath(e))
	if err != nil {
		return false, "", nil
	}
	img := finalizerImage(bin)
	n := 0
	for _, t := range e.Lab.Tenants {
		tc, err := e.tenantClients(t.Name)
		if err != nil {
			return false, "", nil
		}
		d, err := tc.Kube.AppsV1().Deployments(finalizerNamespace).Get(ctx, finalizerName, metav1.GetOptions{})
		if err != nil || len(d.Spec.Template.Spec.Containers) == 0 || d.Spec.Template.Spec.Containers[0].Image != img {
			return false, "", nil
		}
		if ok, _ := kube.DeploymentReady(d); !ok {
			return false, "", nil
		}
		if ok, _, err := workersAdvertise(ctx, e, tc, t); err != nil || !ok {
			return false, "", nil
		}
		if ok, _, err := cardsSeen(ctx, e, tc, t.Name); err != nil || !ok {
			return false, "", nil
		}
		n += len(wantCards(e, t.Name))
	}
	return true, fmt.Sprintf("HAMi sees all %d cards; bind finalizer %s running in every tenant", n, img), nil
}

func (gpusStage) Run(ctx context.Context, e *Env) (string, error) {
	path := labctlPath(e)
	bin, err := os.ReadFile(path)
	if err != nil {
		return "", fail(stageGPUs, "labctl binary "+path, "", err)
	}
	if err := nodeimage.CheckStaticLinux(bytes.NewReader(bin)); err != nil {
		return "", fail(stageGPUs, "labctl binary "+path, "", err)
	}
	img := finalizerImage(bin)
	if ok, err := e.Docker.ImageExists(ctx, img); err != nil {
		return "", fail(stageGPUs, "image "+img, "", err)
	} else if !ok {
		rootfs, err := nodeimage.ImageRootfs(bin)
		if err != nil {
			return "", fail(stageGPUs, "image "+img, "", err)
		}
		if err := e.Docker.Import(ctx, bytes.NewReader(rootfs), img, nodeimage.ImageChanges...); err != nil {
			return "", fail(stageGPUs, "image "+img, "", err)
		}
	}
	labYAML, err := yaml.Marshal(e.Lab)
	if err != nil {
		return "", fail(stageGPUs, "lab file", "", err)
	}
	total := 0
	for _, t := range e.Lab.Tenants {
		tc, err := e.tenantClients(t.Name)
		if err != nil {
			return "", fail(stageGPUs, "tenant "+t.Name, "", err)
		}
		for _, w := range t.Workers {
			node := e.Lab.NodeName(t.Name, w.Name)
			if err := nodeimage.Load(ctx, e.Docker, node, img); err != nil {
				return "", fail(stageGPUs, "image "+img+" in worker "+node, "", err)
			}
		}
		if err := tc.serverSideApplier().ApplyAll(ctx, finalizerObjects(e.Lab, t.Name, img, labYAML)...); err != nil {
			return "", fail(stageGPUs, "bind finalizer in tenant "+t.Name, "apply", err)
		}
		cond, err := e.wait(ctx, e.Timeouts.Rollout, "Deployment "+finalizerName+" in tenant "+t.Name, func(ctx context.Context) (bool, string, error) {
			d, err := tc.Kube.AppsV1().Deployments(finalizerNamespace).Get(ctx, finalizerName, metav1.GetOptions{})
			if err != nil {
				return false, "", err
			}
			ok, cond := kube.DeploymentReady(d)
			return ok, cond, nil
		})
		if err != nil {
			return "", fail(stageGPUs, "Deployment "+finalizerNamespace+"/"+finalizerName+" in tenant "+t.Name, cond, err)
		}
		// The finalizer re-asserts the registration every pass, so a
		// kubelet that zeroed it is waited out; what stays wrong fails here.
		cond, err = e.wait(ctx, e.Timeouts.Cards, "allocatable GPU resources in tenant "+t.Name, func(ctx context.Context) (bool, string, error) {
			return workersAdvertise(ctx, e, tc, t)
		})
		if err != nil {
			return "", fail(stageGPUs, "worker Nodes of tenant "+t.Name, cond, err)
		}
		cond, err = e.wait(ctx, e.Timeouts.Cards, "HAMi cards in tenant "+t.Name, func(ctx context.Context) (bool, string, error) {
			return cardsSeen(ctx, e, tc, t.Name)
		})
		if err != nil {
			return "", fail(stageGPUs, "HAMi scheduler in tenant "+t.Name, cond, err)
		}
		total += len(wantCards(e, t.Name))
	}
	return fmt.Sprintf("HAMi sees all %d cards; bind finalizer %s running in every tenant", total, img), nil
}

// cardsSeen scrapes HAMi's scheduler metrics through the tenant API server's
// service proxy (which rides the konnectivity tunnel, the lab's critical
// path) and compares the cards it reports with the lab's.
func cardsSeen(ctx context.Context, e *Env, tc *Clients, tenant string) (bool, string, error) {
	svc, err := tc.Kube.CoreV1().Services(render.HAMiNamespace).Get(ctx, hamiScheduler, metav1.GetOptions{})
	if err != nil {
		return false, "", err
	}
	port := metricsPort(svc)
	if port == 0 {
		return false, fmt.Sprintf("Service %s has no port targeting %d (ports: %v)", hamiScheduler, hamiMetricsTargetPort, svc.Spec.Ports), nil
	}
	body, err := tc.Kube.CoreV1().Services(render.HAMiNamespace).ProxyGet("http", hamiScheduler, strconv.Itoa(int(port)), "metrics", nil).DoRaw(ctx)
	if err != nil {
		return false, "", fmt.Errorf("scrape %s metrics: %w", hamiScheduler, err)
	}
	ok, cond := gpus.SeesAllCards(body, wantCards(e, tenant))
	return ok, cond, nil
}
