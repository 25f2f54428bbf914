package stages

import "time"

// kubeadm v1.36.3's own waits in a worker join (cmd/kubeadm/app/constants/
// constants.go, the defaults of JoinConfiguration.timeouts in
// apis/kubeadm/v1beta4/defaults.go): discovery of the cluster-info
// ConfigMap, the kubelet's health check, then the kubelet's TLS bootstrap
// (cmd/phases/join/kubelet.go waits for both in turn).
const (
	kubeadmDiscoveryTimeout          = 5 * time.Minute
	kubeadmKubeletHealthCheckTimeout = 4 * time.Minute
	kubeadmTLSBootstrapTimeout       = 5 * time.Minute
	// kubeadmAPICallTimeout (KubernetesAPICallTimeout) bounds each API call
	// kubeadm makes after the bootstrap; one is the cut-off's margin.
	kubeadmAPICallTimeout = 1 * time.Minute
)

// defaultJoinTimeout is when labctl gives up on one `kubeadm join`: after every wait
// kubeadm allows itself, so a slow but healthy join is never cut off
// half-way (which would leave a half-joined worker behind).
const defaultJoinTimeout = kubeadmDiscoveryTimeout + kubeadmKubeletHealthCheckTimeout + kubeadmTLSBootstrapTimeout + kubeadmAPICallTimeout
