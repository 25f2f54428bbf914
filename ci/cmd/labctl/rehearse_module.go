package main

import (
	"errors"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/rehearsal/moduleimages"
)

// newRehearseModuleCommands are the Dagger module's pieces for the
// rehearsal: its images (module-images); the rehearse command attaches them.
func newRehearseModuleCommands() []*cobra.Command {
	return []*cobra.Command{rehearseModuleImages()}
}

func rehearseModuleImages() *cobra.Command {
	var root, mobyGit, cliGit string
	var planOnly bool
	c := &cobra.Command{
		Use:   "module-images",
		Short: "Build the images the Dagger module pulls (docker:29-cli, docker:29-dind, golang:1.26) from pinned sources, cached",
		Long: `Build, or reuse from the cache, docker:29-cli, docker:29-dind and golang:1.26 as the Dagger module
pulls them: Docker ` + moduleimages.DockerVersion + ` from vendored git snapshots of moby/moby and docker/cli
(--moby-git-dir, --cli-git-dir), containerd and runc through the Go module proxy, this machine's Go,
Debian's packages (debootstrap; run as root). Images are built on DOCKER_HOST's daemon and kept as
archives under <cache>/module-images. The report lists how each differs from the published image.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if planOnly {
				moduleimages.WritePlan(out)
				return nil
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			rep := moduleimages.Build(cmd.Context(), moduleimages.Options{Root: root, Docker: docker.CLI{}, Log: log, MobyGitDir: mobyGit, CLIGitDir: cliGit})
			rep.Write(out)
			if rep.Stopped != nil || len(rep.Failed()) > 0 {
				return errors.New("module images not all built (see the report above)")
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&root, "cache", "", "cache directory (default $GPU_LAB_REHEARSAL_CACHE or ~/.cache/gpu-lab/rehearsal)")
	f.StringVar(&mobyGit, "moby-git-dir", "", "git directory of moby/moby holding tag docker-v"+moduleimages.DockerVersion)
	f.StringVar(&cliGit, "cli-git-dir", "", "git directory of docker/cli holding tag v"+moduleimages.DockerVersion)
	f.BoolVar(&planOnly, "plan", false, "print what would be built and how, build nothing")
	return c
}
