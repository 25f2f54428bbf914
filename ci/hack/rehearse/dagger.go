package main

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/daggerbuild"
	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/hostdaemon"
)

// newRehearseDaggerCommand is `rehearse dagger`: the command glue
// only; what it does lives in ci/hack/rehearsal/daggerbuild.
func newRehearseDaggerCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dagger",
		Short: "Build the Dagger CLI, engine image and Go proxy tree from pinned sources, and run the engine on the private daemon",
	}
	engine := &cobra.Command{Use: "engine", Short: "Start or stop the Dagger engine on the rehearsal's private daemon"}
	engine.AddCommand(rehearseDaggerEngineUp(), rehearseDaggerEngineDown())
	adaptations := &cobra.Command{
		Use:   "adaptations",
		Short: "List every way the Dagger path adapts the engine to this machine, with its reason and evidence",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return rehearsal.Print(cmd.OutOrStdout(), rehearsal.DaggerAdaptations())
		},
	}
	cmd.AddCommand(rehearseDaggerBuild(), engine, adaptations, rehearseDaggerGoProxy(), rehearseDaggerRun())
	return cmd
}

type daggerBuildFlags struct {
	root, mirror, moduleDir string
}

func (f *daggerBuildFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.root, "cache", "", "where the Dagger build keeps what it made (default <rehearsal cache>/dagger)")
	c.Flags().StringVar(&f.mirror, "snapshots", "/work/.mirror",
		"root of the git snapshots (OWNER+NAME/repo each, as the fetch tool keeps them)")
	c.Flags().StringVar(&f.moduleDir, "module", ".dagger", "the gpu-lab Dagger module whose go.mod the Go proxy tree serves")
}

func (f *daggerBuildFlags) options(cmd *cobra.Command) (daggerbuild.Options, error) {
	l := daggerbuild.Layout{Root: f.root}
	if f.root == "" {
		var err error
		if l, err = daggerbuild.DefaultLayout(); err != nil {
			return daggerbuild.Options{}, err
		}
	}
	return daggerbuild.Options{
		Log:       slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil)),
		Layout:    l,
		Snapshots: daggerbuild.Snapshots{Mirror: f.mirror},
		ModuleDir: f.moduleDir,
		Docker:    docker.CLI{},
	}, nil
}

func rehearseDaggerBuild() *cobra.Command {
	var f daggerBuildFlags
	var planOnly bool
	c := &cobra.Command{
		Use:   "build",
		Short: "Build (once, cached) the dagger CLI, the engine image and the Go proxy tree",
		Long: `Builds from the pinned dagger/dagger tag's git snapshot, the module proxy and Debian's packages
(run as root: debootstrap), each step once into the rehearsal cache (<cache>/dagger), the
independent ones side by side, each saying its progress at least every 30 s: the dagger CLI,
the engine image (saved as a docker-archive for ` + "`rehearse dagger engine up`" + `) and the Go proxy
tree the gpu-lab module's build needs inside the rehearsal's namespace.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := f.options(cmd)
			if err != nil {
				return err
			}
			if planOnly {
				daggerbuild.WritePlan(cmd.OutOrStdout(), o.Layout, o.Snapshots)
				return nil
			}
			r, err := daggerbuild.Build(cmd.Context(), o)
			if err != nil {
				return err
			}
			cmd.Printf("dagger CLI: %s\nengine image (docker-archive of %s): %s\nGo proxy tree: %s\n",
				r.CLI, daggerbuild.EngineImageRef, r.EngineImage, r.GoProxy)
			return nil
		},
	}
	f.register(c)
	c.Flags().BoolVar(&planOnly, "plan", false, "print what would be built, and from where, and build nothing")
	return c
}

// daemonDocker is the docker CLI talking to the private daemon of dir.
func daemonDocker(f *daemonFlags) (docker.CLI, hostdaemon.Layout, error) {
	l, err := f.layout()
	if err != nil {
		return docker.CLI{}, l, err
	}
	return docker.CLI{Env: []string{"DOCKER_HOST=" + l.DockerHost()}}, l, nil
}

// engineUpFlags are `rehearse dagger engine up`'s flags.
type engineUpFlags struct {
	daemon                daemonFlags
	build                 daggerBuildFlags
	archive, goproxy, lvl string
	mirrors, httpHosts    []string
}

func rehearseDaggerEngineUp() *cobra.Command {
	var f engineUpFlags
	c := &cobra.Command{
		Use:   "up",
		Short: "Load the built engine image into the private daemon, start the engine and print the runner host",
		Long: `Loads the engine image ` + "`rehearse dagger build`" + ` made into the private daemon (--dir), starts it
privileged with an engine.json holding the given registry mirrors and plain-HTTP hosts, and
GOPROXY for the Go SDK's containers (default http://<the daemon's bridge gateway>:5001), then
prints the variables the dagger CLI needs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDaggerEngineUp(cmd, &f)
		},
	}
	f.bind(c)
	return c
}

// bind adds `rehearse dagger engine up`'s flags to c.
func (f *engineUpFlags) bind(c *cobra.Command) {
	f.daemon.register(c, false)
	f.build.register(c)
	c.Flags().StringVar(&f.archive, "image", "", "the engine image's docker-archive (default: the newest one rehearse dagger build made)")
	c.Flags().StringVar(&f.goproxy, "goproxy", "",
		"GOPROXY for the Go SDK's containers (default http://<bridge gateway>:5001; empty for none)")
	c.Flags().StringVar(&f.lvl, "log-level", "", "the engine's logLevel (error, warn, info, debug, trace)")
	c.Flags().StringArrayVar(&f.mirrors, "mirror", nil,
		"registry mirror REGISTRY=HOST[:PORT][,…] (repeatable), e.g. docker.io=172.17.0.1:5000")
	c.Flags().StringArrayVar(&f.httpHosts, "http", nil, "registry or mirror host spoken to in plain HTTP (repeatable)")
}

// runDaggerEngineUp is `rehearse dagger engine up` once its flags are
// parsed. It takes the command, not a context and streams: the build
// options log to the command's stderr, and whether --goproxy was given at
// all decides its default (an empty one given means none).
func runDaggerEngineUp(cmd *cobra.Command, f *engineUpFlags) error {
	o, err := f.build.options(cmd)
	if err != nil {
		return err
	}
	d, l, err := daemonDocker(&f.daemon)
	if err != nil {
		return err
	}
	if f.archive == "" {
		if f.archive, err = o.Layout.LatestEngineArchive(); err != nil {
			return err
		}
	}
	cfg, err := f.engineConfig()
	if err != nil {
		return err
	}
	if !cmd.Flags().Changed("goproxy") {
		gw, err := daggerbuild.BridgeGateway(cmd.Context(), d)
		if err != nil {
			return err
		}
		f.goproxy = "http://" + gw + ":5001"
	}
	runner, err := daggerbuild.EngineUp(cmd.Context(), d, daggerbuild.EngineOptions{
		Log: o.Log, Archive: f.archive, Config: cfg, GoProxy: f.goproxy,
		// Not in the daemon's directory, which daemon down removes only
		// when it holds nothing foreign.
		StateDir: filepath.Join(o.Layout.Root, "engine"),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "export DOCKER_HOST=%s\nexport _EXPERIMENTAL_DAGGER_RUNNER_HOST=%s\n", l.DockerHost(), runner)
	return nil
}

// engineConfig is the engine.json the flags ask for: its log level,
// plain-HTTP hosts and each registry's mirrors.
func (f *engineUpFlags) engineConfig() (daggerbuild.EngineConfig, error) {
	cfg := daggerbuild.EngineConfig{LogLevel: f.lvl, HTTP: f.httpHosts, Mirrors: map[string][]string{}}
	for _, m := range f.mirrors {
		reg, hosts, err := daggerbuild.ParseMirror(m)
		if err != nil {
			return daggerbuild.EngineConfig{}, err
		}
		cfg.Mirrors[reg] = append(cfg.Mirrors[reg], hosts...)
	}
	return cfg, nil
}

func rehearseDaggerEngineDown() *cobra.Command {
	var f daemonFlags
	c := &cobra.Command{
		Use:   "down",
		Short: "Remove the engine container and its state volume from the private daemon",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, _, err := daemonDocker(&f)
			if err != nil {
				return err
			}
			return daggerbuild.EngineDown(cmd.Context(), d)
		},
	}
	f.register(c, false)
	return c
}

func rehearseDaggerGoProxy() *cobra.Command {
	var (
		bf         daggerBuildFlags
		tree, addr string
	)
	c := &cobra.Command{
		Use:   "goproxy",
		Short: "Serve the Go proxy tree over HTTP (run it inside the daemon's namespace: nsenter --net=/run/netns/NAME)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := bf.options(cmd)
			if err != nil {
				return err
			}
			if tree == "" {
				if tree, err = o.Layout.LatestModuleProxy(); err != nil {
					return err
				}
			}
			return daggerbuild.ServeGoProxy(cmd.Context(), o.Log, tree, addr)
		},
	}
	bf.register(c)
	c.Flags().StringVar(&tree, "tree", "", "the GOPROXY file tree (default: the newest one rehearse dagger build made)")
	c.Flags().StringVar(&addr, "addr", "172.17.0.1:5001", "address to listen on (the daemon's bridge gateway, port 5001)")
	return c
}
