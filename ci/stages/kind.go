package stages

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/kind/pkg/cluster"
	kindexec "sigs.k8s.io/kind/pkg/exec"
)

// KindProvider is the Kind edge on kind's Go API with the docker provider.
// kind's docker provider shells out to the docker CLI, so it follows
// DOCKER_HOST like the rest of the lab.
type KindProvider struct {
	Provider *cluster.Provider
	// Wait is how long Create waits for the control plane to be Ready.
	Wait time.Duration
	// create stands in for Provider.Create in tests.
	create func(name string, options ...cluster.CreateOption) error
}

// NewKindProvider returns the docker-backed provider; kind's own messages
// go to log (debug level; nil discards).
func NewKindProvider(wait time.Duration, log *slog.Logger) *KindProvider {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &KindProvider{
		Provider: cluster.NewProvider(cluster.ProviderWithDocker(), cluster.ProviderWithLogger(kindLogger{log})),
		Wait:     wait,
	}
}

// Create creates the cluster. kind's API takes no context; cancellation is
// honoured before it starts.
//
// A panic in kind is the create's error: kind v0.33.0 reads the first line
// of `kubectl get nodes` in the node without checking there is one
// (pkg/cluster/internal/create/actions/waitforready/waitforready.go:122),
// and under a Ctrl-C (it reaches kind's `docker exec` too) it got none — the
// rehearsal's cluster:INT+25s (2026-12-07) ended labctl up with that panic's
// stack instead of the teardown a SIGINT gets. kind's own cleanup does not
// run after a panic; the stage's failure tears the half-made cluster down.
func (k *KindProvider) Create(ctx context.Context, cfg *kind.Cluster, kubeconfigPath string) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	create := k.create
	if create == nil {
		create = k.Provider.Create
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("kind create cluster %s: kind panicked: %v", cfg.Name, p)
		}
	}()
	err = create(cfg.Name,
		cluster.CreateWithV1Alpha4Config(cfg),
		cluster.CreateWithWaitForReady(k.Wait),
		cluster.CreateWithKubeconfigPath(kubeconfigPath),
		cluster.CreateWithDisplayUsage(false),
		cluster.CreateWithDisplaySalutation(false),
	)
	if err != nil {
		return kindCreateError(cfg.Name, err)
	}
	return nil
}

// kindCreateError is kind's create error with the failed command's output.
func kindCreateError(cluster string, err error) error {
	return fmt.Errorf("kind create cluster %s: %w%s", cluster, err, commandOutput(err))
}

// commandOutput is the tail of the output of the command a kind error comes
// from, as the kind CLI prints it (sigs.k8s.io/kind@v0.33.0
// cmd/kind/app/main.go:89-96): kind's error text names only the command
// and its exit status (pkg/exec/types.go:53-56), and what went wrong (a
// docker run refused by the daemon) is in the output.
func commandOutput(err error) string {
	re := kindexec.RunErrorForError(err)
	if re == nil || len(re.Output) == 0 {
		return ""
	}
	return "; command output: " + lastLines(string(re.Output), 3)
}

// Exists reports whether kind knows a cluster of that name — anyone's: the
// stages decide on ownership (Env.ownedKindCluster), not on this.
func (k *KindProvider) Exists(_ context.Context, name string) (bool, error) {
	names, err := k.Provider.List()
	if err != nil {
		return false, fmt.Errorf("kind get clusters: %w", err)
	}
	return slices.Contains(names, name), nil
}

// KubeConfig returns the external kubeconfig.
func (k *KindProvider) KubeConfig(_ context.Context, name string) ([]byte, error) {
	s, err := k.Provider.KubeConfig(name, false)
	if err != nil {
		return nil, fmt.Errorf("kind get kubeconfig %s: %w", name, err)
	}
	return []byte(s), nil
}

// Delete deletes the cluster (a missing cluster is not an error for kind).
func (k *KindProvider) Delete(_ context.Context, name, kubeconfigPath string) error {
	if err := k.Provider.Delete(name, kubeconfigPath); err != nil {
		return fmt.Errorf("kind delete cluster %s: %w", name, err)
	}
	return nil
}

// CollectLogs is `kind export logs`.
func (k *KindProvider) CollectLogs(_ context.Context, name, dir string) error {
	if err := k.Provider.CollectLogs(name, dir); err != nil {
		return fmt.Errorf("kind export logs %s: %w", name, err)
	}
	return nil
}
