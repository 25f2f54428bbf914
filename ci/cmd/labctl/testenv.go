package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/state"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

func newTestenvCommand(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testenv",
		Short: "Local test environment: the lab's topology from real Kubernetes components, no Docker",
	}
	cmd.AddCommand(newTestenvUpCommand(s), newTestenvBuildCommand(s))
	return cmd
}

// testenvUp is what `labctl testenv up` was asked for.
type testenvUp struct {
	labFile  string
	stateDir state.Dir
	workDir  string
	keep     bool
	binDir   string
	// hamiBinary and hamiImage run HAMi's real scheduler instead of the
	// protocol double (testenv.Options.HAMiBinary, HAMiImage).
	hamiBinary, hamiImage string
}

func newTestenvUpCommand(s streams) *cobra.Command {
	var o testenvUp
	var stateDir string
	c := &cobra.Command{
		Use:   "up",
		Short: "Run the local test environment in the foreground until interrupted",
		Long: `Starts etcd and, per tenant, kube-apiserver, kube-scheduler, kube-controller-manager,
konnectivity server and agent, KWOK workers with simulated GPUs, and HAMi's scheduler, all
as local processes. HAMi's scheduler is the HAMi protocol test double (labctl itself,
started with HAMi's command line) unless --hami-binary runs a real HAMi scheduler binary
or --hami-image takes it out of a HAMi image (/k8s-vgpu/bin/scheduler, through the Docker
daemon, cached by image ID); the status lines and reports name which one ran.
Writes the tenants' kubeconfigs into the state dir in the
layout ` + "`labctl up`" + ` uses, prints "ready", and stops everything on SIGINT or SIGTERM.
Interrupted while starting, it stops what had started, removes its temporary work
directory and prints "interrupted".

The first run builds the Kubernetes binaries (` + "`labctl testenv build`" + ` alone does that,
with a progress line after 10 s, then every 25 s); later runs start in seconds.

` + labRule,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.stateDir = state.Dir(stateDir)
			return runTestenvUp(cmd.Context(), o, s.out, s.errOut)
		},
	}
	c.Flags().StringVarP(&o.labFile, "file", "f", "", "lab file (default: the lab the state dir records, "+
		"else the embedded seed lab); must be that lab when the state dir has one")
	c.Flags().StringVar(&stateDir, "state-dir", string(state.DefaultDir), "where to write kubeconfigs and lab state")
	c.Flags().StringVar(&o.workDir, "work-dir", "", "where processes keep data and logs (default: a temporary directory, removed on exit)")
	c.Flags().BoolVar(&o.keep, "keep-work-dir", false, "keep the temporary work directory (logs) on exit")
	c.Flags().StringVar(&o.binDir, "bin-dir", "", "`DIR` of prebuilt binaries (default: the cache that labctl testenv build fills)")
	c.Flags().StringVar(&o.hamiBinary, "hami-binary", "",
		"run this HAMi scheduler `BINARY` instead of the protocol double (default $"+testenv.EnvHAMiBinary+")")
	c.Flags().StringVar(&o.hamiImage, "hami-image", "",
		"run HAMi's scheduler taken out of `IMAGE` (e.g. projecthami/hami:v2.10.0) with the Docker daemon")
	c.MarkFlagsMutuallyExclusive("hami-binary", "hami-image")
	return c
}

func newTestenvBuildCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "build",
		Short: "Build the local test environment's Kubernetes binaries (once; later runs reuse them)",
		Long: `Builds kube-apiserver, kube-scheduler, kube-controller-manager, etcd, KWOK and the
konnectivity server and agent from the nested module ci/testenv/k8sbin into the binary
cache, printing a progress line after 10 s, then every 25 s, and prints the directory. Returns at
once when they are built already. Run it before ` + "`go test ./...`" + `, whose output is
buffered per package, to see the first build's progress.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTestenvBuild(cmd.Context(), testenv.EnsureBinaries, s.out, s.errOut)
		},
	}
}

func runTestenvBuild(ctx context.Context, ensure func(context.Context, *slog.Logger) (string, error), out, errOut io.Writer) error {
	dir, err := ensure(ctx, progressLog(errOut))
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(out, "interrupted")
			return exitError{code: 130}
		}
		return fmt.Errorf("testenv build: %w", err)
	}
	fmt.Fprintln(out, dir)
	return nil
}

func progressLog(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func runTestenvUp(ctx context.Context, o testenvUp, out, errOut io.Writer) error {
	// The environment never outlives the process that started labctl.
	ctx, cancel := whenOrphaned(ctx)
	defer cancel()
	l, err := resolveLab(o.labFile, o.stateDir, makesState)
	if err != nil {
		return err
	}
	// Before anything starts: the state dir must be (or become) the local
	// environment's, and no other environment may run on it. The lock is
	// held for as long as the environment runs, so `labctl down` knows
	// whether its state is stale.
	release, err := holdTestenvState(o.stateDir)
	if err != nil {
		return err
	}
	defer release()
	opts, err := o.options(out, errOut)
	if err != nil {
		return err
	}
	env, err := testenv.Start(ctx, l, opts)
	if errors.Is(err, testenv.ErrInterrupted) {
		// Not a failure: the user asked it to stop. Start has stopped
		// every process and removed its temporary work dir.
		fmt.Fprintln(out, "interrupted")
		return exitError{code: 130}
	}
	if err != nil {
		return fmt.Errorf("testenv up: %w", err)
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		return env.Stop()
	}
	defer stop()
	if err := env.WriteState(o.stateDir); err != nil {
		return err
	}
	printTestenvReady(out, env, o.stateDir)
	if err := watchTestenv(ctx, env); err != nil {
		return err
	}
	if errors.Is(context.Cause(ctx), errOrphaned) {
		fmt.Fprintf(out, "stopping: %v\n", errOrphaned)
	} else {
		fmt.Fprintln(out, "stopping")
	}
	if err := stop(); err != nil {
		return fmt.Errorf("testenv stop: %w", err)
	}
	fmt.Fprintln(out, "stopped")
	return nil
}

// holdTestenvState claims the state dir for the local environment and
// takes its lock, whose release it returns.
func holdTestenvState(d state.Dir) (release func(), err error) {
	if err := d.Claim(state.Testenv); err != nil {
		return nil, fmt.Errorf("testenv up: %w", err)
	}
	release, err = d.Hold("labctl testenv up")
	if err != nil {
		return nil, fmt.Errorf("testenv up: %w: an environment already runs on it; use another --state-dir", err)
	}
	return release, nil
}

// options are testenv.Start's options. Without a real HAMi scheduler
// (--hami-binary, --hami-image or $GPU_LAB_HAMI_BINARY) the environment
// runs the protocol double, which is labctl itself, and says so on out.
func (o testenvUp) options(out, errOut io.Writer) (testenv.Options, error) {
	opts := testenv.Options{BinDir: o.binDir, WorkDir: o.workDir, KeepWorkDir: o.keep, Log: progressLog(errOut),
		HAMiBinary: o.hamiBinary, HAMiImage: o.hamiImage}
	if opts.HAMiBinary == "" && opts.HAMiImage == "" && os.Getenv(testenv.EnvHAMiBinary) == "" {
		fmt.Fprintln(out, testenv.DoubleNotice)
		// The double is this program: `labctl internal hami-double`.
		var err error
		if opts.DoubleBinary, err = os.Executable(); err != nil {
			return testenv.Options{}, fmt.Errorf("testenv up: find labctl itself to run the HAMi protocol double: %w", err)
		}
	}
	return opts, nil
}

// printTestenvReady says what runs and where its kubeconfigs and logs
// are, then "ready", the line testenv up's help promises once it runs.
func printTestenvReady(out io.Writer, env *testenv.Env, d state.Dir) {
	fmt.Fprintf(out, "hami: %s\n", env.HAMi())
	fmt.Fprintf(out, "backend: %s\n", env.Backend())
	for _, t := range env.Tenants() {
		fmt.Fprintf(out, "tenant %s: kubeconfig %s\n", t, d.Kubeconfig(t))
	}
	fmt.Fprintf(out, "logs: %s\n", env.WorkDir())
	fmt.Fprintf(out, "boot: %s\n", env.BootTime().Round(time.Millisecond))
	fmt.Fprintln(out, "ready")
}

// watchTestenv checks the environment once a second until ctx ends, and
// fails as soon as one of its processes has failed.
func watchTestenv(ctx context.Context, env *testenv.Env) error {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-tick.C:
			if err := env.Err(); err != nil {
				return fmt.Errorf("testenv: %w", err)
			}
		}
	}
	return nil
}
