package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpu-lab/gpu-lab/ci/render"
	"github.com/gpu-lab/gpu-lab/ci/stages"
)

// newPostRenderCommand is `labctl internal hami-post-render`, what helm runs as the
// HAMi release's post-renderer (stage hami): manifests on stdin, manifests
// on stdout, with the lab's kube-scheduler configuration in place of the
// chart's.
func newPostRenderCommand(s streams) *cobra.Command {
	var configFile string
	cmd := &cobra.Command{
		Use:    stages.PostRenderCommand + " --scheduler-config FILE",
		Short:  "Helm post-renderer of HAMi's chart: install the lab's kube-scheduler configuration (run by stage hami)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return postRender(s.in, s.out, configFile)
		},
	}
	cmd.Flags().StringVar(&configFile, "scheduler-config", "", "the kube-scheduler configuration to install (written by stage hami)")
	return cmd
}

func postRender(in io.Reader, out io.Writer, configFile string) error {
	if configFile == "" {
		return fmt.Errorf("%s: --scheduler-config is required", stages.PostRenderCommand)
	}
	cfg, err := os.ReadFile(configFile)
	if err != nil {
		return fmt.Errorf("%s: %w", stages.PostRenderCommand, err)
	}
	manifests, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("%s: read manifests from helm: %w", stages.PostRenderCommand, err)
	}
	res, err := render.HAMiPostRender(manifests, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", stages.PostRenderCommand, err)
	}
	_, err = out.Write(res)
	return err
}
