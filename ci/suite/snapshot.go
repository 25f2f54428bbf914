package suite

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/results"
)

// snapshot samples which pods hold how much of each registered card of a
// tenant, for the report's card pictures. A pod counts while HAMi counts it:
// it carries an allocation and is neither finished nor being deleted.
func (r *runner) snapshot(ctx context.Context, tenant, moment string) (results.TenantState, error) {
	cs := r.clients[tenant]
	st := results.TenantState{Name: tenant, Moment: moment, At: time.Now()}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return st, fmt.Errorf("tenant %s: list nodes: %w", tenant, err)
	}
	pods, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return st, fmt.Errorf("tenant %s: list pods: %w", tenant, err)
	}
	return buildState(st, nodes.Items, pods.Items), nil
}

func buildState(st results.TenantState, nodes []corev1.Node, pods []corev1.Pod) results.TenantState {
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	cardAt := map[string]*results.Card{}
	for _, n := range nodes {
		devs, err := nodeCards(&n)
		if err != nil {
			continue
		}
		rn := results.Node{Name: n.Name}
		for _, d := range devs {
			rn.Cards = append(rn.Cards, results.Card{UUID: d.ID, Type: d.Type, MemoryMB: d.Devmem, Cores: d.Devcore})
		}
		st.Nodes = append(st.Nodes, rn)
	}
	for i := range st.Nodes {
		for j := range st.Nodes[i].Cards {
			c := &st.Nodes[i].Cards[j]
			cardAt[st.Nodes[i].Name+"/"+c.UUID] = c
		}
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].CreationTimestamp.Before(&pods[j].CreationTimestamp) })
	for _, p := range pods {
		node := p.Annotations[gpus.AnnoVGPUNode]
		if node == "" || p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		devs, err := gpus.DecodePodDevices(p.Annotations[gpus.AnnoDevicesAllocated])
		if err != nil {
			continue
		}
		for _, d := range devs.All() {
			if c := cardAt[node+"/"+d.UUID]; c != nil {
				c.Holders = append(c.Holders, results.Slice{
					Namespace: p.Namespace, Pod: p.Name, Case: p.Labels[LabelCase],
					MemoryMB: d.MemoryMB, Cores: d.Cores, Phase: string(p.Status.Phase),
				})
			}
		}
	}
	return st
}

// Snapshot records the tenant's cards now, labelled with the moment.
func (t *T) Snapshot(ctx context.Context, tenant, moment string) {
	st, err := t.r.snapshot(ctx, tenant, moment)
	if err != nil {
		t.Step("could not sample the cards of %s: %v", tenant, err)
		return
	}
	t.r.addTenantState(st)
	t.Step("sampled the cards of %s for the report (%s)", tenant, moment)
}
