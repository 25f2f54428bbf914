package stages

import (
	"context"
	"fmt"
	"strings"

	"github.com/sourcegraph/conc/pool"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/internal/nodeimage"
	"github.com/gpu-lab/gpu-lab/ci/internal/steps"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/owner"
)

// Preload is an image bundle already loaded into the lab's Docker daemon
// (`labctl up --images DIR`). Before a stage runs, each of its images is
// imported from the daemon into the containerd of every node that runs it
// (docker save | ctr import, one archive per node), a Helm release's images
// just before the stage installs that release (kamaji.go), and a worker
// gets its images right after it starts, before it joins, and the hami
// stage's beside its join (workers_steps.go). Every pod spec that names a bundled image asks IfNotPresent (see
// images.List's PullPolicy), so the kubelet finds it and never pulls —
// Kamaji's kube-apiserver and konnectivity-server, which Kamaji
// 26.8.2-edge asks Always, included: with a bundle the tenants stage first
// installs a MutatingAdmissionPolicy that makes their pods ask IfNotPresent
// (bundlepullpolicy.go).
type Preload struct {
	// Dir is the bundle's directory, named when the bundle lacks an image.
	Dir string
	// Images is the lab's image list (images.List).
	Images []images.Image
	// Loaded maps each bundled reference to its name on the daemon.
	Loaded images.Loaded
	// Charts maps a chart name to its archive in the bundle (absolute
	// path); the stages install those from there (fromBundle).
	Charts map[string]string
}

// localImage is the name the daemon knows ref by: a loaded digest-pinned
// image goes by its ID, everything else by its reference.
func (e *Env) localImage(ref string) string {
	if e.Preload == nil {
		return ref
	}
	return e.Preload.Loaded.Local(ref)
}

// preloadFor lists the bundled images of a stage that run on place and
// belong to release ("": to no release the stage imports on its own;
// images.Image Release).
func (p *Preload) preloadFor(stage, release string, place images.Place) []string {
	var out []string
	for _, i := range p.Images {
		if i.Stage == stage && i.Release == release && i.Place == place && i.Bundled() && p.Loaded.Has(i.Ref) {
			out = append(out, i.Ref)
		}
	}
	return out
}

// preloadStage imports the stage's bundled images of release ("" for those
// of no release) into every existing node that runs them: the management
// node, then, unless !workers, the workers already there,
// preloadsAtOnce at a time (a worker the workers stage starts gets them
// from preloadNode). Every node is checked to be this state dir's before
// any import (owner.go): `labctl up --only STAGE --images DIR` reaches here
// without the cluster or workers stage, and a container named like a lab
// node may be another state dir's, or no lab's at all.
func (e *Env) preloadStage(ctx context.Context, stage, release string, workers bool) error {
	if e.Preload == nil {
		return nil
	}
	if refs := e.Preload.preloadFor(stage, release, images.Management); len(refs) > 0 {
		if err := e.managementNodeOwned(ctx); err != nil {
			return fmt.Errorf("preload images into %s: %w", e.controlPlaneContainer(), err)
		}
		if err := e.importAll(ctx, e.controlPlaneContainer(), refs); err != nil {
			return err
		}
	}
	refs := e.Preload.preloadFor(stage, release, images.Worker)
	if len(refs) == 0 || !workers {
		return nil
	}
	var nodes []string
	for _, t := range e.Lab.Tenants {
		for _, w := range t.Workers {
			node := e.Lab.NodeName(t.Name, w.Name)
			c, err := e.Docker.InspectContainer(ctx, node)
			if docker.IsNotFound(err) {
				continue // the workers stage starts it, then preloadNode
			}
			if err != nil {
				return fmt.Errorf("preload images into %s: %w", node, err)
			}
			if err := e.workerOwned(c, t.Name); err != nil {
				return fmt.Errorf("preload images into %s: %w", node, err)
			}
			nodes = append(nodes, node)
		}
	}
	// Into preloadsAtOnce workers at a time, as the workers stage does:
	// one after another, the hami stage of the Dagger module's lab spent
	// 67 s of its 89 s importing into two workers (2026-12-07, the run's
	// reports-cold/logs/hami.log in ci/hack/rehearsal/testdata/runs/2026-12-07-dagger-dotenv).
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError().WithMaxGoroutines(preloadsAtOnce)
	for _, node := range nodes {
		p.Go(func(ctx context.Context) error { return e.importAll(ctx, node, refs) })
	}
	return p.Wait()
}

// importsIntoItsWorkers is a stage that imports its bundled worker images
// into each of its workers itself, right after starting it (workersStage,
// workers_steps.go): the Runner's preload before it goes to the management
// node alone — into the workers it would only repeat the stage's own
// imports (0.77 s on the 2026-12-08 rehearsal, where the workers were
// begun ahead and had every image).
type importsIntoItsWorkers interface{ importsIntoItsWorkers() }

// preloadsWorkersBefore tells whether the Runner's preload before stage s
// goes into the workers too.
func preloadsWorkersBefore(s Stage) bool {
	_, own := s.(importsIntoItsWorkers)
	return !own
}

// managementNodeOwned: the management node is a node container of this
// state dir's kind cluster — the cluster is this state dir's
// (ownedKindCluster: every container kind lists for it has an ID the state
// dir recorded) and the container of the node's name is the one recorded
// under that name.
func (e *Env) managementNodeOwned(ctx context.Context) error {
	owned, err := e.ownedKindCluster(ctx)
	if err != nil {
		return err
	}
	name := e.controlPlaneContainer()
	if !owned {
		return fmt.Errorf("kind cluster %s does not exist: run the cluster stage first (`labctl up`)", e.Lab.Name)
	}
	rec, _, err := owner.Read(e.State)
	if err != nil {
		return err
	}
	c, err := e.Docker.InspectContainer(ctx, name)
	if err != nil {
		return err
	}
	return owner.KindNode(rec, e.State, e.Lab.Name, name, c)
}

// preloadNode imports the stage's bundled worker images into one worker of
// tenant, once it is checked to be this state dir's.
func (e *Env) preloadNode(ctx context.Context, stage, tenant, node string) error {
	if e.Preload == nil {
		return nil
	}
	c, err := e.Docker.InspectContainer(ctx, node)
	if err != nil {
		return fmt.Errorf("preload images into %s: %w", node, err)
	}
	if err := e.workerOwned(c, tenant); err != nil {
		return fmt.Errorf("preload images into %s: %w", node, err)
	}
	return e.importAll(ctx, node, e.Preload.preloadFor(stage, "", images.Worker))
}

func (e *Env) importAll(ctx context.Context, node string, refs []string) error {
	imported, err := nodeimage.Load(ctx, e.Docker, node, refs)
	if err != nil {
		return fmt.Errorf("preload images %s into %s: %w", strings.Join(refs, " "), node, err)
	}
	if len(imported) > 0 {
		e.log().Info("preloaded images", "node", node, "images", strings.Join(imported, " "))
	}
	return nil
}

// preloadStep is the stage's preloading of release's images ("": of those
// of no release, which the Runner does before the stage), into the
// workers too unless !workers, as a step, said as preloadPlan says it, so
// a run's timeline shows it; the zero step without a bundle or without
// such images.
func (e *Env) preloadStep(stage, release string, workers bool) steps.Step {
	say := e.preloadPlan(stage, release, workers)
	if len(say) == 0 {
		return steps.Step{}
	}
	return steps.Do(func(ctx context.Context) error {
		if err := e.preloadStage(ctx, stage, release, workers); err != nil {
			return fail(stage, "image bundle", "", err)
		}
		return nil
	}, say...)
}

// preloadPlan is the --dry-run line of a stage's preloading of release's
// images ("": of those of no release), into the workers too unless
// !workers.
func (e *Env) preloadPlan(stage, release string, workers bool) []string {
	if e.Preload == nil {
		return nil
	}
	of := ""
	if release != "" {
		of = " (release " + release + "'s images)"
	}
	var out []string
	if refs := e.Preload.preloadFor(stage, release, images.Management); len(refs) > 0 {
		out = append(out, fmt.Sprintf("preload into %s: docker save | ctr import %s%s",
			e.controlPlaneContainer(), strings.Join(refs, " "), of))
	}
	if refs := e.Preload.preloadFor(stage, release, images.Worker); len(refs) > 0 && workers {
		out = append(out, fmt.Sprintf("preload into every worker, %d at a time: docker save | ctr import %s%s",
			preloadsAtOnce, strings.Join(refs, " "), of))
	}
	return out
}
