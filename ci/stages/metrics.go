package stages

import (
	"bufio"
	"bytes"
	"regexp"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// HAMi's scheduler exposes one GPUDeviceMemoryLimit sample per card it has
// registered, labelled with the card's UUID (HAMi docs, "Cluster device
// allocation endpoint"); that is the lab's evidence the scheduler sees a card.
var memLimitRe = regexp.MustCompile(`^GPUDeviceMemoryLimit\{[^}]*deviceuuid="([^"]+)"`)

// CardsSeen lists the card UUIDs in a scrape of HAMi's scheduler metrics.
func CardsSeen(metrics []byte) map[string]bool {
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(metrics))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		if m := memLimitRe.FindSubmatch(sc.Bytes()); m != nil {
			seen[string(m[1])] = true
		}
	}
	return seen
}

// MissingCards returns the wanted UUIDs the scrape does not show, sorted.
func MissingCards(metrics []byte, want []string) []string {
	seen := CardsSeen(metrics)
	var miss []string
	for _, u := range want {
		if !seen[u] {
			miss = append(miss, u)
		}
	}
	sort.Strings(miss)
	return miss
}

// HAMiMetricsTargetPort is the extender's metrics port (--metrics-bind-address :9395).
const HAMiMetricsTargetPort = 9395

// MetricsPort picks the scheduler Service port that targets the metrics
// listener, by target port or by a name containing "monitor"; 0 if none.
func MetricsPort(svc *corev1.Service) int32 {
	for _, p := range svc.Spec.Ports {
		if p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal == HAMiMetricsTargetPort {
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
