package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/images"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/stages"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

type upFlags struct {
	labFlags
	only        string
	keep        bool
	dryRun      bool
	pullTimeout time.Duration
	labctlBin   string
	images      string
	// unverifiedPins: images.LoadOptions.AllowUnverifiedPins.
	unverifiedPins bool
}

func (f *upFlags) register(cmd *cobra.Command) {
	f.labFlags.register(cmd, true)
	cmd.Flags().StringVar(&f.only, "only", "", "run one stage: cluster, kamaji, tenants, workers, hami or gpus")
	cmd.Flags().BoolVar(&f.keep, "keep", false, "leave the lab up when a stage fails (default: tear it down)")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "print every stage's objects and commands without touching Docker")
	cmd.Flags().DurationVar(&f.pullTimeout, "pull-timeout", stages.DefaultTimeouts().Pull,
		"give up on an image pull after this long (a daemon without registry access fails fast)")
	cmd.Flags().StringVar(&f.labctlBin, "labctl-binary", "", "labctl binary helm runs as HAMi's post-renderer (default: this binary)")
	_ = cmd.Flags().MarkHidden("labctl-binary")
	cmd.Flags().StringVar(&f.images, "images", "", "image bundle directory (written by labctl images save): "+
		"load it into the daemon, import each stage's images into the nodes before the stage, make Kamaji's control-plane "+
		"pods pull IfNotPresent and install the charts from DIR/charts; no registry or chart repository needed")
	cmd.Flags().BoolVar(&f.unverifiedPins, images.AllowUnverifiedPinsFlag, false, "with --images, load a digest-pinned "+
		"image (name@sha256:…) even when neither the daemon, the archive nor the bundle's index ties it to its digest "+
		"(a bundle whose index records no image ID or digests); without it such a bundle is refused before anything is loaded")
}

func newUpCommand(s streams) *cobra.Command {
	var f upFlags
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Build the lab on Docker: kind, Kamaji, tenants, workers, HAMi, mock GPUs",
		Long: `Build the lab on the Docker daemon of DOCKER_HOST (the local one by default), stage by stage:
cluster → kamaji → tenants → workers → hami → gpus. Each stage skips work that is already
there, so running up again resumes a lab. -f may change a running lab: tenants added or removed
at the end of its list, workers added to or removed from a tenant; what goes is removed first
(only it), then only what is added is built. State (kubeconfigs, stage records, diagnostics of a
failure) goes to --state-dir.`,
		Example: `  labctl up                       # the seed lab
  labctl up -f lab.yaml --keep    # leave a failed lab up for inspection
  labctl up --only hami           # redo one stage
  labctl up --dry-run             # print what would be applied`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runUp(cmd.Context(), s, &f)
		},
	}
	f.register(cmd)
	return cmd
}

func runUp(ctx context.Context, s streams, f *upFlags) error {
	if err := stages.ValidateOnly(f.only); err != nil {
		return err
	}
	l, err := f.loadLab(changesState)
	if err != nil {
		return err
	}
	e, err := newEnv(l, &f.labFlags, s.errOut)
	if err != nil {
		return err
	}
	e.Timeouts.Pull = f.pullTimeout
	e.LabctlBinary = f.labctlBin
	change, err := sayChange(s, e)
	if err != nil {
		return err
	}
	if !f.dryRun {
		// The state dir first: one of another backend, another user or
		// not labctl's is refused before the daemon is asked anything
		// (loading a bundle records it there too).
		release, err := holdLabState(e.State)
		if err != nil {
			return err
		}
		defer release()
	}
	if f.images != "" {
		opts := images.LoadOptions{AllowUnverifiedPins: f.unverifiedPins}
		if err := loadBundle(ctx, s.errOut, e, f.images, opts, f.dryRun); err != nil {
			return err
		}
	}
	r := upRunner(e, f, newPrinter(s.out, f.verbose))
	if f.dryRun {
		fmt.Fprintf(s.out, "lab %s, state dir %s, docker %s — nothing is applied (--dry-run)\n", l.Name, e.State, dockerDesc(e.Reach))
		if len(change.RemovedTenants)+len(change.RemovedWorkers) > 0 {
			fmt.Fprintln(s.out, "before the stages, what the lab file no longer has goes:")
			for _, line := range stages.PrunePlan(e, change) {
				fmt.Fprintln(s.out, "  "+line)
			}
		}
		return r.Plan(e)
	}
	if err := upPreflight(ctx, s.errOut, e, f.only); err != nil {
		return err
	}
	start := time.Now()
	if err := prune(ctx, s, e, change); err != nil {
		return err
	}
	if err := e.State.WriteLab(l); err != nil {
		return err
	}
	if err := r.Up(ctx, e); err != nil {
		return withDiagnosticsHint(err, e.State)
	}
	fmt.Fprintf(s.out, "lab %s is up in %s: `labctl shell --state-dir %s` opens a shell with every tenant's kubeconfig\n",
		l.Name, time.Since(start).Round(time.Second), e.State)
	return nil
}

// holdLabState claims the state dir for a real lab and takes its lock,
// whose release it returns; a lock another process holds fails it, naming
// that process.
func holdLabState(d state.Dir) (release func(), err error) {
	if err := d.Claim(state.RealLab); err != nil {
		return nil, err
	}
	release, err = d.Hold("labctl up")
	if err != nil {
		return nil, fmt.Errorf("%w; wait for it to end", err)
	}
	return release, nil
}

// upRunner runs the stages --only names (all by default), printing their
// events with p; a failed stage is diagnosed, then the lab is torn down
// unless --keep.
func upRunner(e *stages.Env, f *upFlags, p *printer) *stages.Runner {
	return &stages.Runner{
		Stages:  stages.All(),
		Only:    f.only,
		Keep:    f.keep,
		OnEvent: p.event,
		Diagnose: func(ctx context.Context, failed *stages.Error, dir string) error {
			return stages.Diagnose(ctx, e, failed, dir)
		},
		Teardown: func(ctx context.Context) error {
			_, err := stages.Down(ctx, e)
			return err
		},
	}
}

// upPreflight checks, before any stage runs, that the daemon and its host
// can run the stages only names (all when empty), and prints each note the
// check makes on errOut.
func upPreflight(ctx context.Context, errOut io.Writer, e *stages.Env, only string) error {
	notes, err := stages.Preflight(ctx, e, only)
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(errOut, "preflight:", n)
	}
	return nil
}

// withDiagnosticsHint points a failed stage's error at the diagnostics it
// left in the state dir and at labctl status; other errors stay as they are.
func withDiagnosticsHint(err error, d state.Dir) error {
	var se *stages.Error
	if errors.As(err, &se) {
		return fmt.Errorf("%w\n(see %s/diagnostics; `labctl status --state-dir %s`)", err, d, d)
	}
	return err
}

func dockerDesc(r stages.Reach) string {
	if r.Remote() {
		return "at " + r.Host
	}
	return "local"
}

// sayChange says how the lab file changes the lab the state dir records
// (resolveLab let it through: lab.Changes), or refuses it where the running
// lab cannot take it: with a remote daemon every tenant's NodePorts are
// published on the Docker host when the management node is created (kind
// extraPortMappings, render.KindConfig), and a node's port mappings cannot
// be added later, so no tenant can be added there (workers can: they reach
// their tenant inside the Docker network).
func sayChange(s streams, e *stages.Env) (lab.Change, error) {
	recorded, err := e.State.ReadLab()
	if err != nil {
		return lab.Change{}, nil // nothing recorded yet: a new lab
	}
	c, err := lab.Changes(recorded, e.Lab)
	if err != nil || c.None() {
		return lab.Change{}, nil
	}
	if e.Reach.Host != "" && len(c.AddedTenants) > 0 {
		return c, fmt.Errorf("lab file adds tenant(s) %s to lab %s, whose tenants are reached through ports published on "+
			"the Docker host %s when its management node was created; a running node takes no new ones: `labctl down "+
			"--state-dir %s`, then up again", strings.Join(c.AddedTenants, ", "), e.Lab.Name, e.Reach.Host, e.State)
	}
	fmt.Fprintf(s.out, "lab %s: the lab file %s; the shared stages and the running tenants are checked and left as they "+
		"are, only what goes is removed and only what is added is built\n", e.Lab.Name, c)
	return c, nil
}

// prune removes what the lab file no longer has (stages.Prune), printing
// each object as it went.
func prune(ctx context.Context, s streams, e *stages.Env, c lab.Change) error {
	if len(c.RemovedTenants)+len(c.RemovedWorkers) == 0 {
		return nil
	}
	start := time.Now()
	removed, err := stages.Prune(ctx, e, c)
	for _, r := range removed {
		fmt.Fprintln(s.out, "removed", r)
	}
	if err != nil {
		return fmt.Errorf("%w\n(the lab file's change is not recorded: `labctl up -f` again takes it on)", err)
	}
	fmt.Fprintf(s.out, "removed what the lab file no longer has in %s\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}
