package hamidouble

import (
	"context"
	"io"
	"log/slog"

	"k8s.io/klog/v2"
)

// Main parses HAMi's command line, takes the client configuration
// from where HAMi's scheduler takes it (KUBECONFIG, ~/.kube/config,
// in-cluster), its admin token from $GPU_LAB_DOUBLE_ADMIN_TOKEN_FILE, and
// serves until ctx ends. Every line it writes, klog's
// (client-go's) included, names the double.
func Main(ctx context.Context, args []string, getenv func(string) string, logw io.Writer) error {
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelInfo})).With("component", Banner)
	klog.SetSlogLogger(log)
	cfg, err := configFromArgs(args)
	if err != nil {
		return err
	}
	rc, from, err := restConfigLikeHAMi(getenv)
	if err != nil {
		return err
	}
	if cfg.AdminToken, err = readAdminToken(getenv); err != nil {
		return err
	}
	cfg.Rest, cfg.Log = rc, log
	log.Info(Banner+": client configuration", "from", from, "server", rc.Host)
	return listenAndServe(ctx, cfg)
}
