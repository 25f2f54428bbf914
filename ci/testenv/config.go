package testenv

import (
	"fmt"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

// schedulerConfig is the tenant's KubeSchedulerConfiguration: HAMi chart's
// profile and extender pointing at the double on loopback, as the chart
// points it at the extender container in its own pod. Binds that lose a
// node-lock race are retried within a second (kube-scheduler's default
// backoff grows to 10 s), so a burst of GPU pods settles in seconds.
func schedulerConfig(kubeconfigPath string, extenderPort int) (string, error) {
	b, err := render.HAMiSchedulerConfig(render.SchedulerOptions{
		Kubeconfig:  kubeconfigPath,
		ExtenderURL: fmt.Sprintf("https://127.0.0.1:%d", extenderPort),
		MaxBackoff:  time.Second,
	})
	return string(b), err
}

// egressSelectorConfig sends the API server's `cluster` traffic over the
// konnectivity server's socket, as Kamaji configures every tenant API server.
func egressSelectorConfig(udsPath string) (string, error) {
	b, err := render.EgressSelector(udsPath)
	return string(b), err
}
