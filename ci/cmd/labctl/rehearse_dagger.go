package main

import (
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/rehearsal/daggerbuild"
)

// newRehearseDaggerCommand is `labctl rehearse dagger`: the command glue
// only; what it does lives in ci/rehearsal/daggerbuild.
func newRehearseDaggerCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dagger",
		Short: "Build the Dagger CLI, engine image and Go proxy tree from pinned sources, and run the engine on the private daemon",
	}
	cmd.AddCommand(rehearseDaggerBuild())
	return cmd
}

type daggerBuildFlags struct {
	root, mirror, moduleDir string
}

func (f *daggerBuildFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.root, "cache", "", "where the Dagger build keeps what it made (default <rehearsal cache>/dagger)")
	c.Flags().StringVar(&f.mirror, "mirror", "/work/.mirror", "root of the git snapshots (OWNER+NAME/repo each)")
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
	c := &cobra.Command{
		Use:   "build",
		Short: "Build (once, cached) the dagger CLI, the engine image and the Go proxy tree",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := f.options(cmd)
			if err != nil {
				return err
			}
			r, err := daggerbuild.Build(cmd.Context(), o)
			if err != nil {
				return err
			}
			cmd.Printf("dagger CLI: %s\nengine image (docker-archive of %s): %s\nGo proxy tree: %s\n", r.CLI, daggerbuild.EngineImageRef, r.EngineImage, r.GoProxy)
			return nil
		},
	}
	f.register(c)
	return c
}
