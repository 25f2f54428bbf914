package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gpu-lab/gpu-lab/ci/hack/rehearsal/run/faultkube"
)

// faultKubeName is the hidden subcommand of `rehearse run` that `rehearse
// run --fault` runs inside the daemon's network namespace (nsenter, then
// this binary): the fault's Kubernetes side, with the kubeconfigs labctl up
// wrote. It is a subcommand of run because nothing else runs it.
const faultKubeName = "fault-kube"

// faultKubeTimeout bounds each request to an API server: a tenant API
// server that is gone must fail a look, not hang it.
const faultKubeTimeout = 15 * time.Second

func newFaultKubeCommand() *cobra.Command {
	var op faultkube.Op
	var kubeconfig string
	c := &cobra.Command{
		Use: faultKubeName + " VERB --kubeconfig FILE",
		Short: "What rehearse run --fault runs in the daemon's namespace: list or delete pods, " +
			"read etcd members' leadership, read a node (" + strings.Join(faultkube.Verbs, ", ") + ")",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			op.Verb = args[0]
			if err := op.Check(); err != nil {
				return err
			}
			if kubeconfig == "" {
				return errors.New("fault-kube needs --kubeconfig (a kubeconfig labctl up wrote into its state directory)")
			}
			cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
			if err != nil {
				return fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
			}
			cfg.Timeout = faultKubeTimeout
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return fmt.Errorf("client for %s: %w", kubeconfig, err)
			}
			return faultkube.Run(cmd.Context(), cs, op, cmd.OutOrStdout())
		},
	}
	fl := c.Flags()
	fl.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (the state directory's kubeconfigs/<tenant or management>.yaml)")
	fl.StringVar(&op.Namespace, "namespace", "", "namespace of the pods")
	fl.StringVar(&op.Selector, "selector", "", "label selector of the pods")
	fl.StringVar(&op.Name, "name", "", "delete: only this pod; node: the node")
	fl.StringVar(&op.UID, "uid", "", "delete: only while the pod has this UID")
	fl.IntVar(&op.MetricsPort, "metrics-port", 0, "etcd-members: the port each member serves plain-HTTP metrics on")
	return c
}
