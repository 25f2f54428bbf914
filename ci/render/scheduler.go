package render

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// HAMiSchedulerConfig is the KubeSchedulerConfiguration of HAMi's
// kube-scheduler: chart 2.10.0's (charts/hami/templates/scheduler/configmap.yaml
// at v2.10.0 for Kubernetes >= 1.26: leader election as the values say, one
// profile hami-scheduler, one extender with the filter and bind verbs, node
// cache capable, weight 1, 30 s timeout, the chart's managed resources) plus
// the lab's retry backoff, which the chart has no value for. The real lab
// puts it into the chart's ConfigMap (HAMiPostRender), the local test
// environment hands it to its kube-scheduler: one configuration, two places.
// A test holds it to `helm template`'s output.
func HAMiSchedulerConfig(l *lab.Lab, p HAMiPlace) ([]byte, error) {
	if p.ExtenderURL == "" {
		return nil, fmt.Errorf("scheduler config: place %+v has no extender URL", p)
	}
	var managed []schedv1.ExtenderManagedResource
	for _, r := range hamiManagedResources {
		managed = append(managed, schedv1.ExtenderManagedResource{Name: r, IgnoredByScheduler: true})
	}
	leaderElect := false
	initial, maxBackoff := int64(l.HAMi.PodInitialBackoffSeconds), int64(l.HAMi.PodMaxBackoffSeconds)
	cfg := &schedv1.KubeSchedulerConfiguration{
		TypeMeta: metav1.TypeMeta{APIVersion: schedv1.SchemeGroupVersion.String(), Kind: "KubeSchedulerConfiguration"},
		Profiles: []schedv1.KubeSchedulerProfile{{SchedulerName: ptr(gpus.SchedulerName)}},
		Extenders: []schedv1.Extender{{
			URLPrefix:        p.ExtenderURL,
			EnableHTTPS:      true,
			TLSConfig:        &schedv1.ExtenderTLSConfig{Insecure: true},
			FilterVerb:       "filter",
			BindVerb:         "bind",
			NodeCacheCapable: true,
			Weight:           1,
			HTTPTimeout:      metav1.Duration{Duration: 30 * time.Second},
			ManagedResources: managed,
		}},
		PodInitialBackoffSeconds: &initial,
		PodMaxBackoffSeconds:     &maxBackoff,
	}
	if p.DefaultProfile {
		cfg.Profiles = append([]schedv1.KubeSchedulerProfile{{SchedulerName: ptr("default-scheduler")}}, cfg.Profiles...)
	}
	cfg.LeaderElection.LeaderElect = &leaderElect
	cfg.LeaderElection.ResourceName = gpus.SchedulerName
	cfg.LeaderElection.ResourceNamespace = HAMiNamespace
	cfg.ClientConnection.Kubeconfig = p.Kubeconfig
	return YAML(cfg)
}

// hamiManagedResources are the extender's managedResources in chart 2.10.0
// with its default values (the "hami-vgpu.scheduler.managedResources" helper
// of charts/hami/templates/_helpers.tpl at v2.10.0, as `helm template`
// renders it: testdata/hami-chart-2.10.0). The lab only schedules NVIDIA
// resources; the others are kept so the configuration is the chart's.
var hamiManagedResources = []string{
	gpus.ResourceGPU, gpus.ResourceGPUMem, gpus.ResourceGPUCores, gpus.ResourceGPUMemPercent, gpus.ResourcePriority,
	"cambricon.com/vmlu",
	"hygon.com/dcunum", "hygon.com/dcumem", "hygon.com/dcucores",
	"metax-tech.com/gpu", "metax-tech.com/sgpu", "metax-tech.com/vcore", "metax-tech.com/vmemory",
	"mthreads.com/vgpu",
	"enflame.com/drs-gcu", "enflame.com/gcu-memory", "enflame.com/gcu-core", "enflame.com/gcu",
	"kunlunxin.com/xpu", "kunlunxin.com/vxpu", "kunlunxin.com/vxpu-memory",
	"aws.amazon.com/neuron", "aws.amazon.com/neuroncore",
	"vastaitech.com/va",
	"birentech.com/gpu",
	"amd.com/gpu", "amd.com/gpumem", "amd.com/gpucores",
}

// EgressSelector is the API server's EgressSelectorConfiguration that sends
// `cluster` traffic (Service-referenced webhooks, logs, exec) over the
// konnectivity server's socket, as Kamaji configures every tenant API server
// (Kamaji 26.8.2-edge
// internal/resources/konnectivity/egress_selector_configuration_resource.go:101). The apiserver.k8s.io types live in k8s.io/apiserver,
// which the root module does not need otherwise, so a local mirror of the
// few fields is used; a test decodes it strictly.
func EgressSelector(udsPath string) ([]byte, error) {
	if udsPath == "" {
		return nil, fmt.Errorf("egress selector: the konnectivity socket path is required")
	}
	return YAML(&egressSelectorConfiguration{
		APIVersion: "apiserver.k8s.io/v1beta1",
		Kind:       "EgressSelectorConfiguration",
		EgressSelections: []egressSelection{{
			Name: "cluster",
			Connection: egressConnection{
				ProxyProtocol: "GRPC",
				Transport:     &egressTransport{UDS: &egressUDS{UDSName: udsPath}},
			},
		}},
	})
}

// egressSelectorConfiguration mirrors apiserver.k8s.io/v1beta1.
type egressSelectorConfiguration struct {
	APIVersion       string            `json:"apiVersion"`
	Kind             string            `json:"kind"`
	EgressSelections []egressSelection `json:"egressSelections"`
}

// egressSelection mirrors apiserver.k8s.io/v1beta1 EgressSelection.
type egressSelection struct {
	Name       string           `json:"name"`
	Connection egressConnection `json:"connection"`
}

// egressConnection mirrors apiserver.k8s.io/v1beta1 Connection.
type egressConnection struct {
	ProxyProtocol string           `json:"proxyProtocol"`
	Transport     *egressTransport `json:"transport,omitempty"`
}

// egressTransport mirrors apiserver.k8s.io/v1beta1 Transport (UDS only).
type egressTransport struct {
	UDS *egressUDS `json:"uds,omitempty"`
}

// egressUDS mirrors apiserver.k8s.io/v1beta1 UDSTransport.
type egressUDS struct {
	UDSName string `json:"udsName"`
}

func ptr[T any](v T) *T { return &v }
