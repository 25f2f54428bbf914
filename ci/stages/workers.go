package stages

import (
	"context"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/internal/kube"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// workersStage starts one kind-style node container per worker, joins it to
// its tenant with kubeadm, and installs the tenant's CNI (kindnet from the
// node image) and kube-proxy (with the conntrack fix).
type workersStage struct {
	// run is this `up`'s run of the stage when the runner began its first
	// steps ahead (ahead); nil: a run of its own.
	run *workersRun
}

func (workersStage) Name() string { return stageWorkers }

// importsIntoItsWorkers: each worker gets its images right after its
// start (tenantWorkers.preload), so the Runner's preload leaves them out.
func (workersStage) importsIntoItsWorkers() {}

// ahead: starting the workers and importing their images needs the
// cluster stage's network and management node, no tenant control plane.
func (workersStage) ahead(e *Env) (ahead, error) {
	r := newWorkersRun(e)
	s, err := r.aheadSteps()
	return ahead{After: stageCluster, What: "every worker started, until its containerd is active, with its images " +
		"and the hami stage's (the steps up to each tenant's networking below, and the imports beside it)", Steps: s,
		Stage: workersStage{run: r}}, err
}

// workerLabels mark a worker container as the lab's and the tenant's, for
// diagnostics; ownedWorkerLabels adds the owner ID `labctl down` and every
// exec into an existing worker check (owner.go).
func workerLabels(l *lab.Lab, tenant string) map[string]string {
	return map[string]string{render.LabelLab: l.Name, render.LabelTenant: tenant}
}

func (workersStage) Plan(e *Env) ([]string, error) { return planOf(newWorkersRun(e).steps) }

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
