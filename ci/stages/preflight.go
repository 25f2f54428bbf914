package stages

import (
	"context"
	"fmt"
	"slices"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/stages/internal/preflight"
)

// preflightImages are the images the selected stages start containers from;
// `labctl up` makes sure the daemon has (or can pull) them before creating
// anything, so a daemon without registry access fails in seconds.
func preflightImages(l *lab.Lab, only string) []string {
	var out []string
	if selected(stageCluster, only) {
		out = append(out, l.Versions.KindNodeImage)
	}
	if selected(stageWorkers, only) {
		if img := l.Versions.WorkerImage(); !slices.Contains(out, img) {
			out = append(out, img)
		}
	}
	return out
}

// Preflight checks the daemon answers, has the images the run needs, and
// that its host can run the lab (preflight.HostProblems: privileged containers, the
// inotify limits, free disk), and reads the host's cgroup version into
// e.Reach, so every kubelet the stages configure fits it (render
// Options.CgroupV1). It returns what it found, one line each, for the user.
func Preflight(ctx context.Context, e *Env, only string) ([]string, error) {
	if _, err := e.Docker.Ping(ctx); err != nil {
		return nil, err
	}
	imgs := preflightImages(e.Lab, only)
	for _, img := range imgs {
		if err := e.bundleHolds(ctx, img); err != nil {
			return nil, err
		}
		// An image from the bundle is on the daemon under its local name.
		if err := e.Docker.EnsureImage(ctx, e.localImage(img), e.Timeouts.Pull); err != nil {
			return nil, fmt.Errorf("preflight: %w", err)
		}
	}
	info, err := e.Docker.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("preflight: %w", err)
	}
	facts := preflight.HostFacts{CgroupVersion: info.CgroupVersion}
	e.Reach.CgroupV1 = info.CgroupVersion == "1"
	need := preflight.Need{}
	// Only node containers are privileged and take the disk: with no node
	// stage selected nothing is probed.
	if len(imgs) > 0 {
		probe, err := e.Docker.ProbeHost(ctx, e.localImage(imgs[0]), info.UsernsRemap())
		if err != nil {
			return nil, fmt.Errorf("preflight: %w", err)
		}
		facts.Probe = &probe
		if need, err = e.diskNeed(ctx); err != nil {
			return nil, fmt.Errorf("preflight: %w", err)
		}
	}
	problems, notes := preflight.HostProblems(facts, need)
	tr, err := e.Docker.ImageTransfer(ctx)
	if err != nil {
		return nil, fmt.Errorf("preflight: %w", err)
	}
	notes = append(notes, "images: "+tr.Describe()+"; nodes import "+tr.Platform+" only")
	if len(problems) > 0 {
		return notes, preflight.HostError(problems)
	}
	for _, n := range notes {
		e.log().Info("preflight", "host", n)
	}
	return notes, nil
}

// Env.diskNeed reckons preflight.DiskNeed with the daemon's sizes
// of the bundled images the nodes will import (none without a bundle).
func (e *Env) diskNeed(ctx context.Context) (preflight.Need, error) {
	sizes := map[string]int64{}
	if e.Preload != nil {
		var refs, local []string
		for _, i := range e.Preload.Images {
			if i.Bundled() && i.Place != images.OnDaemon && e.Preload.Loaded.Has(i.Ref) && !slices.Contains(refs, i.Ref) {
				refs = append(refs, i.Ref)
				local = append(local, e.localImage(i.Ref))
			}
		}
		got, err := e.Docker.ImageSizes(ctx, local...)
		if err != nil {
			return preflight.Need{}, err
		}
		for i, r := range refs {
			sizes[r] = got[i]
		}
	}
	var list []images.Image
	if e.Preload != nil {
		list = e.Preload.Images
	}
	return preflight.DiskNeed(e.Lab, list, sizes), nil
}

// bundleHolds is preflight.BundleHolds with this run's bundle (nil without
// one: the daemon pulls what it lacks).
func (e *Env) bundleHolds(ctx context.Context, img string) error {
	if e.Preload == nil {
		return nil
	}
	return preflight.BundleHolds(ctx, e.Docker, e.Preload.Dir, img, e.Preload.Loaded.Has(img))
}
