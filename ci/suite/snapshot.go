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
// tenant, for the report's card pictures. A pod counts while it carries an
// allocation and is not finished. A pod being deleted — itself, or its
// namespace, whose pods the namespace controller deletes shortly after — is
// left out of the cards and named in the sample's Deleting list: drawing it
// would show a card held by a pod that is on its way out.
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
	nss, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return st, fmt.Errorf("tenant %s: list namespaces: %w", tenant, err)
	}
	return buildState(st, nodes.Items, pods.Items, terminating(nss.Items)), nil
}

// terminating is the set of namespaces being deleted.
func terminating(nss []corev1.Namespace) map[string]bool {
	out := map[string]bool{}
	for _, ns := range nss {
		if ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating {
			out[ns.Name] = true
		}
	}
	return out
}

func buildState(st results.TenantState, nodes []corev1.Node, pods []corev1.Pod, deletingNS map[string]bool) results.TenantState {
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
	sort.SliceStable(pods, func(i, j int) bool { return pods[i].CreationTimestamp.Before(&pods[j].CreationTimestamp) })
	for _, p := range pods {
		node := p.Annotations[gpus.AnnoVGPUNode]
		if node == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		devs, err := gpus.DecodePodDevices(p.Annotations[gpus.AnnoDevicesAllocated])
		if err != nil {
			continue
		}
		if p.DeletionTimestamp != nil || deletingNS[p.Namespace] {
			st.Deleting = append(st.Deleting, p.Namespace+"/"+p.Name)
			continue
		}
		for _, d := range devs.All() {
			if c := cardAt[node+"/"+d.UUID]; c != nil {
				c.Holders = append(c.Holders, results.Slice{
					Namespace: p.Namespace, Pod: p.Name, Case: p.Labels[labelCase],
					MemoryMB: d.MemoryMB, Cores: d.Cores, Phase: string(p.Status.Phase), State: sliceState(&p),
				})
			}
		}
	}
	return st
}

// sliceState is "" for a pod that has settled, or what it is still doing.
func sliceState(p *corev1.Pod) string {
	switch {
	case p.Spec.NodeName == "":
		return results.SliceBinding
	case p.Status.Phase != corev1.PodRunning:
		return results.SliceStarting
	}
	return ""
}

// snapshot records the tenant's cards now, labelled with the moment. A
// case samples right after its pods were bound, which is before they run:
// it first waits (within the bind timeout, all pods together) for every
// bound pod holding a slice to be Running, so the picture shows settled
// state; a pod still starting then is drawn as "bound, starting".
func (t *caseT) snapshot(ctx context.Context, tenant, moment string) {
	t.settle(ctx, tenant)
	st, err := t.r.snapshot(ctx, tenant, moment)
	if err != nil {
		t.step("could not sample the cards of %s: %v", tenant, err)
		return
	}
	t.r.addTenantState(st)
	t.step("sampled the cards of %s for the report (%s)", tenant, moment)
}

// settle waits for the tenant's bound, not yet Running pods that hold a
// slice. Waiting is best effort: a pod that does not start is recorded as
// it is, and said in a step.
func (t *caseT) settle(ctx context.Context, tenant string) {
	pods, err := t.client(tenant).CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.step("could not list the pods of %s to wait for them to start: %v", tenant, err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, t.r.tm.Bind)
	defer cancel()
	for _, p := range pods.Items {
		if p.Annotations[gpus.AnnoVGPUNode] == "" || p.DeletionTimestamp != nil || sliceState(&p) != results.SliceStarting {
			continue
		}
		ref := podRef{tenant, p.Namespace, p.Name}
		if _, err := t.waitBound(ctx, ref, true); err != nil {
			t.step("pod %s is bound but not Running (%v): the sample draws it as %q", ref, err, results.SliceStarting)
		}
	}
}
