package testenv

import (
	"fmt"
	"strings"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// schedulerConfig is the tenant's KubeSchedulerConfiguration: the profile
// and extender HAMi's chart ships (hami.md §1.1) pointing at the double on
// loopback, as the chart points it at the extender container in its own pod,
// plus the default profile so pods HAMi's webhook leaves alone still schedule.
// Leader election is off: there is one scheduler per tenant, and an elected
// one exits when its API server restarts (local-backend.md §3).
func schedulerConfig(kubeconfigPath string, extenderPort int) string {
	var managed strings.Builder
	for _, r := range []string{gpus.ResourceGPU, gpus.ResourceGPUMem, gpus.ResourceGPUCores, gpus.ResourceGPUMemPercent, gpus.ResourcePriority} {
		fmt.Fprintf(&managed, "  - name: %s\n    ignoredByScheduler: true\n", r)
	}
	return fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
leaderElection:
  leaderElect: false
profiles:
- schedulerName: default-scheduler
- schedulerName: %s
extenders:
- urlPrefix: "https://127.0.0.1:%d"
  enableHTTPS: true
  tlsConfig:
    insecure: true
  filterVerb: filter
  bindVerb: bind
  nodeCacheCapable: true
  weight: 1
  httpTimeout: 30s
  managedResources:
%s`, kubeconfigPath, gpus.SchedulerName, extenderPort, managed.String())
}

// egressSelectorConfig sends the API server's `cluster` traffic (webhooks
// referenced by Service, logs, exec) over the konnectivity server's socket,
// as Kamaji configures every tenant API server (kamaji.md §4.1).
func egressSelectorConfig(udsPath string) string {
	return fmt.Sprintf(`apiVersion: apiserver.k8s.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
- name: cluster
  connection:
    proxyProtocol: GRPC
    transport:
      uds:
        udsName: %q
`, udsPath)
}
