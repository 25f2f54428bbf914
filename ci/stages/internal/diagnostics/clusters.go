package diagnostics

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// Management writes the TenantControlPlanes (resource tcp, all
// namespaces), and the pods and events of each of the namespaces (Kamaji's
// and each tenant's).
func (b *Bundle) Management(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface,
	tcp schema.GroupVersionResource, namespaces []string) {
	if l, err := dyn.Resource(tcp).Namespace("").List(ctx, metav1.ListOptions{}); err == nil {
		y, err := yaml.Marshal(l.Items)
		b.Note(err)
		b.Write("management/tcp.yaml", y)
	} else {
		b.Note(fmt.Errorf("list TenantControlPlanes: %w", err))
	}
	var pods, events strings.Builder
	for _, ns := range namespaces {
		podsTable(ctx, kube, ns, &pods, b.Note)
		eventsTable(ctx, kube, ns, &events, b.Note)
	}
	b.Write("management/kamaji-pods.txt", []byte(pods.String()))
	b.Write("management/events.txt", []byte(events.String()))
}

// Tenant writes a tenant's nodes, events, kube-system pods and the logs of
// HAMi's and nvml-mock's pods.
func (b *Bundle) Tenant(ctx context.Context, kube kubernetes.Interface, name string) {
	base := filepath.Join("tenants", name)
	if nodes, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err == nil {
		y, _ := yaml.Marshal(nodes.Items)
		b.Write(filepath.Join(base, "nodes.yaml"), y)
	} else {
		b.Note(fmt.Errorf("tenant %s: list nodes: %w", name, err))
	}
	var events, pods strings.Builder
	eventsTable(ctx, kube, "", &events, b.Note)
	podsTable(ctx, kube, "kube-system", &pods, b.Note)
	b.Write(filepath.Join(base, "events.txt"), []byte(events.String()))
	b.Write(filepath.Join(base, "pods.txt"), []byte(pods.String()))
	for file, data := range componentLogs(ctx, kube, b.Note) {
		b.Write(filepath.Join(base, "logs", file), data)
	}
}
