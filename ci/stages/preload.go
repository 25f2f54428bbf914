package stages

import (
	"context"
	"fmt"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/internal/nodeimage"
)

// Preload is an image bundle already loaded into the lab's Docker daemon
// (`labctl up --images DIR`). Before a stage runs, each of its images is
// imported from the daemon into the containerd of every node that runs it
// (the path the gpus stage takes for the finalizer image: docker save | ctr
// import), and a worker gets its images right after it starts, before it
// joins. Every pod spec that names a bundled image asks IfNotPresent (see
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

// preloadFor lists the bundled images of a stage that run on place.
func (p *Preload) preloadFor(stage string, place images.Place) []string {
	var out []string
	for _, i := range p.Images {
		if i.Stage == stage && i.Place == place && i.Bundled() && p.Loaded.Has(i.Ref) {
			out = append(out, i.Ref)
		}
	}
	return out
}

// PreloadStage imports the stage's bundled images into every existing node
// that runs them: the management node, and the workers already there (a
// worker the workers stage starts gets them from PreloadNode).
func (e *Env) PreloadStage(ctx context.Context, stage string) error {
	if e.Preload == nil {
		return nil
	}
	if refs := e.Preload.preloadFor(stage, images.Management); len(refs) > 0 {
		if err := e.importAll(ctx, e.ControlPlaneContainer(), refs); err != nil {
			return err
		}
	}
	refs := e.Preload.preloadFor(stage, images.Worker)
	if len(refs) == 0 {
		return nil
	}
	for _, t := range e.Lab.Tenants {
		for _, w := range t.Workers {
			node := e.Lab.NodeName(t.Name, w.Name)
			ok, err := e.Docker.ContainerExists(ctx, node)
			if err != nil {
				return fmt.Errorf("preload images into %s: %w", node, err)
			}
			if ok {
				if err := e.importAll(ctx, node, refs); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// PreloadNode imports the stage's bundled worker images into one worker.
func (e *Env) PreloadNode(ctx context.Context, stage, node string) error {
	if e.Preload == nil {
		return nil
	}
	return e.importAll(ctx, node, e.Preload.preloadFor(stage, images.Worker))
}

func (e *Env) importAll(ctx context.Context, node string, refs []string) error {
	for _, ref := range refs {
		if err := nodeimage.Load(ctx, e.Docker, node, ref); err != nil {
			return fmt.Errorf("preload image %s into %s: %w", ref, node, err)
		}
	}
	if len(refs) > 0 {
		e.log().Info("preloaded images", "node", node, "images", strings.Join(refs, " "))
	}
	return nil
}

// preloadPlan is the --dry-run line of a stage's preloading.
func (e *Env) preloadPlan(stage string) []string {
	if e.Preload == nil {
		return nil
	}
	var out []string
	if refs := e.Preload.preloadFor(stage, images.Management); len(refs) > 0 {
		out = append(out, fmt.Sprintf("preload into %s: docker save | ctr import %s", e.ControlPlaneContainer(), strings.Join(refs, " ")))
	}
	if refs := e.Preload.preloadFor(stage, images.Worker); len(refs) > 0 {
		out = append(out, fmt.Sprintf("preload into every worker: docker save | ctr import %s", strings.Join(refs, " ")))
	}
	return out
}
