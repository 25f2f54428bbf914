package stages

import (
	"bytes"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// hamiMetricsTargetPort is the extender's metrics port: HAMi v2.10.0
// cmd/scheduler/main.go, flag --metrics-bind-address, default ":9395"; the
// chart's Service maps it as port "monitor" (31993 → 9395, chart hami 2.10.0
// templates/scheduler/service.yaml). What is read there is gpus.SeesAllCards.
const hamiMetricsTargetPort = 9395

// metricsPort picks the scheduler Service port that targets the metrics
// listener, by target port or by a name containing "monitor"; 0 if none.
func metricsPort(svc *corev1.Service) int32 {
	for _, p := range svc.Spec.Ports {
		if p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal == hamiMetricsTargetPort {
			return p.Port
		}
	}
	for _, p := range svc.Spec.Ports {
		if bytes.Contains([]byte(p.Name), []byte("monitor")) || bytes.Contains([]byte(p.Name), []byte("metrics")) {
			return p.Port
		}
	}
	return 0
}
