package main

import (
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// newHAMiDoubleCommand is `labctl internal hami-double <HAMi's scheduler flags>`: the
// HAMi protocol test double as a program with HAMi v2.10.0's scheduler
// command line, which the local test environment starts as a process in
// HAMi's place. Hidden: it is test infrastructure, not a lab command.
func newHAMiDoubleCommand(s streams) *cobra.Command {
	return &cobra.Command{
		Use:    "hami-double [HAMi scheduler flags]",
		Short:  "Run the " + hamidouble.Banner + " with HAMi v2.10.0's scheduler command line",
		Hidden: true,
		// HAMi's flags are parsed by hamidouble.ConfigFromArgs, exactly and
		// rejecting unknown ones; cobra must not see them.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHAMiDouble(cmd.Context(), args, os.Getenv, s.errOut)
		},
	}
}

// runHAMiDouble parses HAMi's command line, takes the client configuration
// from where HAMi's scheduler takes it (KUBECONFIG, ~/.kube/config,
// in-cluster), its admin token from $GPU_LAB_DOUBLE_ADMIN_TOKEN_FILE, and
// serves until ctx ends. Every line it writes, klog's
// (client-go's) included, names the double.
func runHAMiDouble(ctx context.Context, args []string, getenv func(string) string, logw io.Writer) error {
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelInfo})).With("component", hamidouble.Banner)
	klog.SetSlogLogger(log)
	cfg, err := hamidouble.ConfigFromArgs(args)
	if err != nil {
		return err
	}
	rc, from, err := hamidouble.RestConfigLikeHAMi(getenv)
	if err != nil {
		return err
	}
	if cfg.AdminToken, err = hamidouble.ReadAdminToken(getenv); err != nil {
		return err
	}
	cfg.Rest, cfg.Log = rc, log
	log.Info(hamidouble.Banner+": client configuration", "from", from, "server", rc.Host)
	return hamidouble.ListenAndServe(ctx, cfg)
}
