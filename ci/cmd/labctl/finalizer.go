package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/sourcegraph/conc/pool"
	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/stages"
)

// registerInterval is how often the in-cluster finalizer re-asserts the GPU
// registration (a restarted kubelet may zero the count resource).
const registerInterval = 30 * time.Second

func newFinalizerCommand(s streams) *cobra.Command {
	var kubeconfig, labFile, tenant string
	cmd := &cobra.Command{
		Use:    stages.FinalizerCommand,
		Short:  "Run the bind finalizer and GPU registrar of one tenant (in-cluster, started by stage gpus)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := slog.New(slog.NewJSONHandler(s.errOut, nil))
			var cfg *rest.Config
			var err error
			if kubeconfig == "" {
				cfg, err = rest.InClusterConfig()
			} else {
				cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
			}
			if err != nil {
				return fmt.Errorf("finalizer: cluster config: %w", err)
			}
			c, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return err
			}
			return runFinalizer(cmd.Context(), c, labFile, tenant, log)
		},
	}
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "tenant kubeconfig (default: in-cluster)")
	cmd.Flags().StringVar(&labFile, "lab", "", "lab file; with --tenant, also keep that tenant's GPUs registered")
	cmd.Flags().StringVar(&tenant, "tenant", "", "tenant whose workers' GPUs to keep registered")
	return cmd
}

func runFinalizer(ctx context.Context, c kubernetes.Interface, labFile, tenant string, log *slog.Logger) error {
	var l *lab.Lab
	var t *lab.Tenant
	if labFile != "" && tenant != "" {
		var err error
		if l, err = lab.Load(labFile); err != nil {
			return err
		}
		if t = l.Tenant(tenant); t == nil {
			return fmt.Errorf("finalizer: lab %s has no tenant %q", l.Name, tenant)
		}
	}
	p := pool.New().WithErrors().WithContext(ctx).WithCancelOnError()
	p.Go(func(ctx context.Context) error {
		log.Info("bind finalizer started: finishing HAMi binds as HAMi's device plugin would (mock plugin lab)")
		return (&deviceplugin.Finalizer{Client: c, Log: log}).Run(ctx)
	})
	if t != nil {
		for _, w := range t.Workers {
			node := l.NodeName(tenant, w.Name)
			p.Go(func(ctx context.Context) error {
				return deviceplugin.KeepRegistered(ctx, c, l, tenant, w, node, registerInterval, func(err error) {
					log.Warn("re-register GPUs", "node", node, "err", err)
				})
			})
		}
	}
	return p.Wait()
}
