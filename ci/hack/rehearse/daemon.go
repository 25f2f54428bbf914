package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
)

// newDaemonCommand is `rehearse daemon up|down|env`.
func newDaemonCommand() *cobra.Command {
	daemon := &cobra.Command{
		Use:   "daemon",
		Short: "Start, stop or locate the rehearsal's private Docker daemon",
		Long: `The rehearsal's private Docker daemon: its own dockerd and containerd (socket, data root,
exec root, pid files, logs under one state directory), inside a network namespace of its
own with no route out, and an OCI runtime wrapper that deletes the capabilities this
machine cannot grant (CAP_SYS_RESOURCE in the sandbox) so that kind's privileged node
containers run. Needs root, ip, nsenter, dockerd, containerd and runc.`,
	}
	daemon.AddCommand(newDaemonUpCommand(), newDaemonDownCommand(), newDaemonEnvCommand())
	return daemon
}

func newAdaptationsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "adaptations",
		Short: "List every way the rehearsal adapts the lab to this machine, with its reason and evidence",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return rehearsal.Print(cmd.OutOrStdout(), rehearsal.Adaptations())
		},
	}
}

// daemonFlags are the flags the daemon subcommands share.
type daemonFlags struct{ dir, netns string }

func (f *daemonFlags) register(c *cobra.Command, withNetns bool) {
	c.Flags().StringVar(&f.dir, "dir", "", "state directory of the daemon (default ~/.cache/gpu-lab/rehearsal/daemon)")
	if withNetns {
		c.Flags().StringVar(&f.netns, "netns", hostdaemon.DefaultNetns, "name of the daemon's network namespace (ip netns)")
	}
}

func (f *daemonFlags) layout() (hostdaemon.Layout, error) {
	d := f.dir
	if d == "" {
		var err error
		if d, err = hostdaemon.DefaultDir(); err != nil {
			return hostdaemon.Layout{}, err
		}
	}
	return hostdaemon.Layout{Dir: d}, nil
}

func newDaemonUpCommand() *cobra.Command {
	var f daemonFlags
	var wrapper string
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "up",
		Short: "Start the private daemon and print the DOCKER_HOST to use",
		Long: `Creates the network namespace, starts containerd and dockerd in it (nsenter --net) and
prints "export DOCKER_HOST=…". The runtime wrapper is built from this checkout with the Go
toolchain unless --wrapper names a built runc-capfilter. On failure it removes what it
started and names the daemon's log.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			l, err := hostdaemon.Start(ctx, hostdaemon.Options{Dir: f.dir, Netns: f.netns, Wrapper: wrapper, Log: progressLog(cmd.ErrOrStderr())})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "export DOCKER_HOST=%s\n", l.DockerHost())
			return nil
		},
	}
	f.register(c, true)
	c.Flags().StringVar(&wrapper, "wrapper", "", "a built runc-capfilter binary to use as the OCI runtime (default: build it)")
	c.Flags().DurationVar(&timeout, "timeout", 3*time.Minute, "how long containerd and dockerd may take to become ready")
	return c
}

func newDaemonDownCommand() *cobra.Command {
	var f daemonFlags
	var keep bool
	c := &cobra.Command{
		Use:   "down",
		Short: "Stop the private daemon and remove its processes, mounts, namespace and state",
		Long: `Stops dockerd (which stops its containers), containerd and any shim left, unmounts what is
mounted below the state directory, removes the network namespace, the containers' cgroups
and the state directory, then checks that nothing of it is left. --keep-data-root keeps
the images for the next run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			netns := f.netns
			if !cmd.Flags().Changed("netns") {
				// The state file names the namespace; without one, only an
				// explicit --netns is removed.
				netns = ""
			}
			return hostdaemon.Stop(cmd.Context(),
				hostdaemon.StopOptions{Dir: f.dir, Netns: netns, KeepDataRoot: keep, Log: progressLog(cmd.ErrOrStderr())})
		},
	}
	f.register(c, true)
	c.Flags().BoolVar(&keep, "keep-data-root", false, "keep the daemon's data root (its images) in the state directory")
	return c
}

func newDaemonEnvCommand() *cobra.Command {
	var f daemonFlags
	c := &cobra.Command{
		Use:   "env",
		Short: "Print the DOCKER_HOST of the private daemon (eval \"$(rehearse daemon env)\")",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := f.layout()
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "export DOCKER_HOST=%s\n", l.DockerHost())
			return nil
		},
	}
	f.register(c, false)
	return c
}
