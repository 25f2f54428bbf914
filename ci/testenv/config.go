package testenv

import (
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// schedulerConfig is the tenant's KubeSchedulerConfiguration: the one the
// real lab puts into HAMi's chart (render.HAMiSchedulerConfig: the chart's
// profile and extender, the lab's backoff), with the extender on loopback
// and the default profile added, because this kube-scheduler is also the
// tenant's only scheduler (a difference listed in differences).
func schedulerConfig(l *lab.Lab, p render.HAMiPlace) (string, error) {
	b, err := render.HAMiSchedulerConfig(l, p)
	return string(b), err
}

// egressSelectorConfig sends the API server's `cluster` traffic over the
// konnectivity server's socket, as Kamaji configures every tenant API server.
func egressSelectorConfig(udsPath string) (string, error) {
	b, err := render.EgressSelector(udsPath)
	return string(b), err
}
