package stages

import (
	"context"
	"fmt"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
)

// The management node's images of the later stages go into it while kind
// creates the cluster (issue 42). On the 2026-12-08 rehearsal the kamaji
// stage imported them itself: 12.4 s before cert-manager's install, then
// 48.5 s beside it that outlasted it by 8.7 s — 21 s of the stage's 94.5 s
// on its critical path — while the host was 30 % idle during kind's create
// (ci/hack/rehearsal/testdata/runs/2026-12-08-workers-ahead, vmstat.log).
// The import begins once the node container is recorded as this state
// dir's (createOwnedKindCluster records it as soon as Docker lists it) and
// its containerd is active, beside kind's own work in the node (kubeadm
// init); containerd takes imports while it runs pods, as `kind load
// docker-image` does into a running cluster. The later stages' own imports
// then find the images there (nodeimage.Load imports only what a node
// lacks).
//
// It is an early start, not the images' only way in: a wait or import that
// fails here is logged and left to the stage whose images they are, which
// imports what is missing and names its failure as its own; and when
// kind's create fails, that failure is the stage's.

// laterManagementImages are the bundle's images of the kamaji and tenants
// stages that run on the management node, in the order those stages
// import them.
func (e *Env) laterManagementImages() []string {
	if e.Preload == nil {
		return nil
	}
	var refs []string
	for _, stage := range []string{stageKamaji, stageTenants} {
		for _, i := range e.Preload.Images {
			if i.Stage == stage && i.Place == images.Management && i.Bundled() && e.Preload.Loaded.Has(i.Ref) {
				refs = append(refs, i.Ref)
			}
		}
	}
	return refs
}

// earlyImports is the cluster stage's step beside kind's create: the zero
// step without a bundle or without such images.
func (r *clusterRun) earlyImports() steps.Step {
	e := r.e
	refs := e.laterManagementImages()
	if len(refs) == 0 {
		return steps.Step{}
	}
	node := e.controlPlaneContainer()
	return steps.Do(func(ctx context.Context) error { r.importEarly(ctx, node, refs); return nil },
		fmt.Sprintf("unless the cluster is there, beside its create: once %s is recorded as this state dir's and its "+
			"containerd is active, docker save | ctr import %s (the kamaji and tenants stages' images; what fails here "+
			"is left to those stages)", node, strings.Join(refs, " ")))
}

// importEarly waits for the management node and imports refs into it;
// what does not succeed is logged and left to the later stages. The wait
// ends with the create: a node whose containerd kind's finished create did
// not leave active is the kamaji stage's to find.
func (r *clusterRun) importEarly(ctx context.Context, node string, refs []string) {
	if r.existed {
		return
	}
	e := r.e
	ready := false
	cond, err := e.wait(ctx, e.Timeouts.ClusterReady, "containerd in "+node+", recorded as this state dir's",
		func(ctx context.Context) (bool, string, error) {
			created := r.createEnded()
			if err := e.managementNodeOwned(ctx); err != nil {
				return created, err.Error(), nil
			}
			out, err := e.Docker.Exec(ctx, node, nil, "systemctl", "is-active", "containerd")
			st := strings.TrimSpace(string(out))
			ready = err == nil && st == "active"
			return ready || created, "containerd " + st, nil
		})
	switch {
	case err == nil && !ready:
		err = fmt.Errorf("not ready when kind's create ended")
	case err == nil:
		err = e.importAll(ctx, node, refs)
	}
	if err != nil && ctx.Err() == nil {
		e.log().Info("left the later stages' images to them", "node", node, "last seen", cond, "why", err.Error())
	}
}
