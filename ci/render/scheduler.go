package render

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// SchedulerOptions configure HAMiSchedulerConfig.
type SchedulerOptions struct {
	// Kubeconfig is the scheduler's kubeconfig path.
	Kubeconfig string
	// ExtenderURL is the HAMi scheduler extender's URL prefix.
	ExtenderURL string
	// MaxBackoff, when set, caps kube-scheduler's retry backoff for pods
	// whose scheduling or bind failed (its default is 1 s initial, 10 s
	// max). The local test environment sets 1 s so a burst's node-lock
	// contention retries within a second; the real lab keeps the default.
	MaxBackoff time.Duration
}

// HAMiSchedulerConfig is a KubeSchedulerConfiguration with the profile and
// extender HAMi's chart ships (hami.md §1.1: filter and bind verbs, node
// cache capable, HAMi's resources ignored by the scheduler), plus the
// default profile so pods HAMi's webhook leaves alone still schedule. Leader
// election is off: one scheduler runs per tenant. In the real lab HAMi's
// chart renders this itself; the local test environment runs a stock
// kube-scheduler with it.
func HAMiSchedulerConfig(o SchedulerOptions) ([]byte, error) {
	if o.Kubeconfig == "" || o.ExtenderURL == "" {
		return nil, fmt.Errorf("scheduler config: kubeconfig and extender URL are required")
	}
	var managed []schedv1.ExtenderManagedResource
	for _, r := range []string{gpus.ResourceGPU, gpus.ResourceGPUMem, gpus.ResourceGPUCores, gpus.ResourceGPUMemPercent, gpus.ResourcePriority} {
		managed = append(managed, schedv1.ExtenderManagedResource{Name: r, IgnoredByScheduler: true})
	}
	leaderElect := false
	cfg := &schedv1.KubeSchedulerConfiguration{
		TypeMeta: metav1.TypeMeta{APIVersion: schedv1.SchemeGroupVersion.String(), Kind: "KubeSchedulerConfiguration"},
		Profiles: []schedv1.KubeSchedulerProfile{
			{SchedulerName: ptr("default-scheduler")},
			{SchedulerName: ptr(gpus.SchedulerName)},
		},
		Extenders: []schedv1.Extender{{
			URLPrefix:        o.ExtenderURL,
			EnableHTTPS:      true,
			TLSConfig:        &schedv1.ExtenderTLSConfig{Insecure: true},
			FilterVerb:       "filter",
			BindVerb:         "bind",
			NodeCacheCapable: true,
			Weight:           1,
			HTTPTimeout:      metav1.Duration{Duration: 30 * time.Second},
			ManagedResources: managed,
		}},
	}
	cfg.LeaderElection.LeaderElect = &leaderElect
	cfg.ClientConnection.Kubeconfig = o.Kubeconfig
	if o.MaxBackoff > 0 {
		secs := int64(o.MaxBackoff / time.Second)
		if secs < 1 {
			secs = 1
		}
		cfg.PodInitialBackoffSeconds = &secs
		cfg.PodMaxBackoffSeconds = &secs
	}
	return YAML(cfg)
}

// EgressSelector is the API server's EgressSelectorConfiguration that sends
// `cluster` traffic (Service-referenced webhooks, logs, exec) over the
// konnectivity server's socket, as Kamaji configures every tenant API server
// (kamaji.md §4.1). The apiserver.k8s.io types live in k8s.io/apiserver,
// which the root module does not need otherwise, so a local mirror of the
// few fields is used; a test decodes it strictly.
func EgressSelector(udsPath string) ([]byte, error) {
	if udsPath == "" {
		return nil, fmt.Errorf("egress selector: the konnectivity socket path is required")
	}
	return YAML(&EgressSelectorConfiguration{
		APIVersion: "apiserver.k8s.io/v1beta1",
		Kind:       "EgressSelectorConfiguration",
		EgressSelections: []EgressSelection{{
			Name: "cluster",
			Connection: EgressConnection{
				ProxyProtocol: "GRPC",
				Transport:     &EgressTransport{UDS: &EgressUDS{UDSName: udsPath}},
			},
		}},
	})
}

// EgressSelectorConfiguration mirrors apiserver.k8s.io/v1beta1.
type EgressSelectorConfiguration struct {
	APIVersion       string            `json:"apiVersion"`
	Kind             string            `json:"kind"`
	EgressSelections []EgressSelection `json:"egressSelections"`
}

// EgressSelection mirrors apiserver.k8s.io/v1beta1 EgressSelection.
type EgressSelection struct {
	Name       string           `json:"name"`
	Connection EgressConnection `json:"connection"`
}

// EgressConnection mirrors apiserver.k8s.io/v1beta1 Connection.
type EgressConnection struct {
	ProxyProtocol string           `json:"proxyProtocol"`
	Transport     *EgressTransport `json:"transport,omitempty"`
}

// EgressTransport mirrors apiserver.k8s.io/v1beta1 Transport (UDS only).
type EgressTransport struct {
	UDS *EgressUDS `json:"uds,omitempty"`
}

// EgressUDS mirrors apiserver.k8s.io/v1beta1 UDSTransport.
type EgressUDS struct {
	UDSName string `json:"udsName"`
}

func ptr[T any](v T) *T { return &v }
