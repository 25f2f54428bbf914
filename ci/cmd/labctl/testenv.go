package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/state"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
)

func init() {
	cmd := &cobra.Command{
		Use:   "testenv",
		Short: "Local test environment: the lab's topology from real Kubernetes components, no Docker",
	}
	cmd.AddCommand(testenvUpCommand())
	root.AddCommand(cmd)
}

func testenvUpCommand() *cobra.Command {
	var labFile, stateDir, workDir string
	var keep bool
	c := &cobra.Command{
		Use:   "up",
		Short: "Run the local test environment in the foreground until interrupted",
		Long: `Starts etcd and, per tenant, kube-apiserver, kube-scheduler, kube-controller-manager,
konnectivity server and agent, KWOK workers with simulated GPUs, and a HAMi protocol test
double, all as local processes. Writes the tenants' kubeconfigs into the state dir in the
layout ` + "`labctl up`" + ` uses, prints "ready", and stops everything on SIGINT or SIGTERM.

The first run builds the Kubernetes binaries (about 5 minutes); later runs start in seconds.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTestenvUp(cmd.Context(), labFile, state.Dir(stateDir), workDir, keep)
		},
	}
	c.Flags().StringVarP(&labFile, "file", "f", "", "lab file (default: the embedded default lab)")
	c.Flags().StringVar(&stateDir, "state-dir", string(state.DefaultDir), "where to write kubeconfigs and lab state")
	c.Flags().StringVar(&workDir, "work-dir", "", "where processes keep data and logs (default: a temporary directory, removed on exit)")
	c.Flags().BoolVar(&keep, "keep-work-dir", false, "keep the temporary work directory (logs) on exit")
	return c
}

func runTestenvUp(ctx context.Context, labFile string, dir state.Dir, workDir string, keep bool) error {
	l, err := lab.Load(labFile)
	if err != nil {
		return err
	}
	out := os.Stdout
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	fmt.Fprintln(out, testenv.DoubleNotice)
	env, err := testenv.Start(ctx, l, testenv.Options{WorkDir: workDir, KeepWorkDir: keep, Log: log})
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
	if err := env.WriteState(dir); err != nil {
		return err
	}
	fmt.Fprintf(out, "backend: %s\n", testenv.Backend)
	for _, t := range env.Tenants() {
		fmt.Fprintf(out, "tenant %s: kubeconfig %s\n", t, dir.Kubeconfig(t))
	}
	fmt.Fprintf(out, "logs: %s\n", env.WorkDir())
	fmt.Fprintf(out, "boot: %s\n", env.BootTime().Round(time.Millisecond))
	fmt.Fprintln(out, "ready")
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
	fmt.Fprintln(out, "stopping")
	if err := stop(); err != nil {
		return fmt.Errorf("testenv stop: %w", err)
	}
	fmt.Fprintln(out, "stopped")
	return nil
}
