package stages

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// A trimmed kindest/node /kind/manifests/default-cni.yaml.
const kindnetRaw = `# kindnetd networking manifest
# would you kindly template this file
# would you kindly patch this file
---
kind: ClusterRole
apiVersion: rbac.authorization.k8s.io/v1
metadata:
  name: kindnet
rules: []
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kindnet
  namespace: kube-system
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kindnet
  namespace: kube-system
spec:
  selector:
    matchLabels: {app: kindnet}
  template:
    metadata:
      labels: {app: kindnet}
    spec:
      containers:
      - name: kindnet-cni
        image: docker.io/kindest/kindnetd:v20250512-df8de77b
        env:
        - name: HOST_IP
          valueFrom: {fieldRef: {fieldPath: status.hostIP}}
        - name: POD_SUBNET
          value: {{ .PodSubnet }}
`

func TestKindnetObjects(t *testing.T) {
	objs, err := kindnetObjects([]byte(kindnetRaw), "10.100.0.0/16", "172.18.0.2:31443")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var ds *unstructured.Unstructured
	for _, o := range objs {
		kinds = append(kinds, o.GetKind())
		if o.GetKind() == "DaemonSet" {
			ds = o
		}
	}
	if !reflect.DeepEqual(kinds, []string{"ClusterRole", "ServiceAccount", "DaemonSet"}) {
		t.Fatalf("kinds = %v", kinds)
	}
	cs, _, _ := unstructured.NestedSlice(ds.Object, "spec", "template", "spec", "containers")
	env := cs[0].(map[string]any)["env"].([]any)
	got := map[string]any{}
	for _, e := range env {
		m := e.(map[string]any)
		got[m["name"].(string)] = m["value"]
	}
	if got["POD_SUBNET"] != "10.100.0.0/16" || got["CONTROL_PLANE_ENDPOINT"] != "172.18.0.2:31443" {
		t.Fatalf("env = %v", got)
	}
	// Applying twice must not stack CONTROL_PLANE_ENDPOINT entries.
	again, _ := kindnetObjects([]byte(kindnetRaw), "10.100.0.0/16", "172.18.0.2:31443")
	cs, _, _ = unstructured.NestedSlice(again[2].Object, "spec", "template", "spec", "containers")
	if n := len(cs[0].(map[string]any)["env"].([]any)); n != 3 {
		t.Errorf("env has %d entries, want 3", n)
	}

	if _, err := kindnetObjects([]byte("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: x}\n"), "10.0.0.0/16", "a:1"); err == nil ||
		!strings.Contains(err.Error(), "no DaemonSet") {
		t.Errorf("no DaemonSet: err = %v", err)
	}
	if _, err := kindnetObjects([]byte("value: {{ .Unknown }}\n"), "10.0.0.0/16", "a:1"); err == nil {
		t.Error("unknown template field: want error")
	}
}

func TestMetricsPort(t *testing.T) {
	svc := func(ports ...corev1.ServicePort) *corev1.Service {
		return &corev1.Service{Spec: corev1.ServiceSpec{Ports: ports}}
	}
	tests := []struct {
		name string
		svc  *corev1.Service
		want int32
	}{
		{"chart layout", svc(corev1.ServicePort{Name: "http", Port: 443, TargetPort: intstr.FromInt32(443)},
			corev1.ServicePort{Name: "monitor", Port: 31993, TargetPort: intstr.FromInt32(9395)}), 31993},
		{"by name when target is named", svc(corev1.ServicePort{Name: "monitor", Port: 9395, TargetPort: intstr.FromString("metrics")}), 9395},
		{"none", svc(corev1.ServicePort{Name: "http", Port: 443, TargetPort: intstr.FromInt32(443)}), 0},
	}
	for _, tt := range tests {
		if got := metricsPort(tt.svc); got != tt.want {
			t.Errorf("%s: metricsPort = %d, want %d", tt.name, got, tt.want)
		}
	}
}
