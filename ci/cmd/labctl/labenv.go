package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gpu-lab/gpu-lab/ci/docker"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/stages"
	"github.com/gpu-lab/gpu-lab/ci/state"
)

// labFlags are the flags every lab command shares.
type labFlags struct {
	file     string
	stateDir string
	verbose  bool
}

func (f *labFlags) register(cmd *cobra.Command, withFile bool) {
	if withFile {
		cmd.Flags().StringVarP(&f.file, "file", "f", "", "lab file (default: the embedded seed lab, or the state dir's lab.yaml)")
	}
	cmd.Flags().StringVar(&f.stateDir, "state-dir", state.DefaultDir, "state directory (kubeconfigs, stage records, diagnostics)")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "print more: debug logs on stderr")
}

// loadLab reads -f, else the state dir's lab.yaml, else the default lab.
func (f *labFlags) loadLab() (*lab.Lab, error) {
	if f.file != "" {
		return lab.Load(f.file)
	}
	if l, err := state.Dir(f.stateDir).ReadLab(); err == nil {
		return l, nil
	}
	return lab.Default(), nil
}

func (f *labFlags) logger(w io.Writer) *slog.Logger {
	if !f.verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// newEnv wires the real edges: the docker CLI (DOCKER_HOST), kind's Go API,
// the pinned helm CLI and client-go.
func newEnv(l *lab.Lab, f *labFlags, stderr io.Writer) (*stages.Env, error) {
	reach, err := stages.ReachFor(os.Getenv("DOCKER_HOST"))
	if err != nil {
		return nil, err
	}
	tm := stages.DefaultTimeouts()
	log := f.logger(stderr)
	return &stages.Env{
		Lab:      l,
		State:    state.Dir(f.stateDir),
		Docker:   docker.CLI{},
		Kind:     stages.NewKindProvider(tm.ClusterReady, log),
		Helm:     stages.HelmCLI{Bin: os.Getenv("LABCTL_HELM")},
		Connect:  connect,
		Reach:    reach,
		Network:  stages.DefaultNetwork(),
		Timeouts: tm,
		Log:      log,
	}, nil
}

// connect builds clients from a kubeconfig; the lab's own clients are not
// throttled like kubectl's defaults (several tenants are polled at once).
func connect(kubeconfig []byte) (*stages.Clients, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 50, 100
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &stages.Clients{Kube: kube, Dynamic: dyn}, nil
}
