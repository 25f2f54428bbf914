package suite

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// diagnostics collects, for a failed case, what a person needs to see why:
// the events of its namespaces, the YAML of its pods (and of the other
// cases' pods it looked at) with HAMi's annotations, the GPU annotations of
// the nodes of its tenants, and the logs of HAMi's device plugin and the
// mock NVML library's pods (writeComponentLogs). Collection errors are reported
// inside the files, never instead of them.
func (t *caseT) diagnostics(ctx context.Context) map[string]string {
	nss, refs := t.namespacesAndRefs()
	tenants := map[string]bool{}
	for _, tn := range t.res.Tenants {
		tenants[tn] = true
	}
	for tn := range nss {
		tenants[tn] = true
	}
	out := map[string]string{}
	var events, pods, nodes, logs strings.Builder
	for _, tn := range sortedSet(tenants) {
		cs := t.client(tn)
		if ns, ok := nss[tn]; ok {
			writeNamespace(ctx, cs, tn, ns, &events, &pods)
		}
		writeNodes(ctx, cs, tn, &nodes)
		writeComponentLogs(ctx, cs, tn, &logs)
	}
	t.writeRefPods(ctx, refs, &pods)
	if events.Len() > 0 {
		out["events.txt"] = events.String()
	}
	if pods.Len() > 0 {
		out["pods.yaml"] = pods.String()
	}
	if nodes.Len() > 0 {
		out["nodes.txt"] = nodes.String()
	}
	if logs.Len() > 0 {
		out[componentLogsFile] = logs.String()
	}
	return out
}

// namespacesAndRefs copies, under the case's lock, its namespaces by tenant
// and the other cases' pods it looked at, so collection does not hold the
// lock.
func (t *caseT) namespacesAndRefs() (map[string]string, []podRef) {
	t.mu.Lock()
	nss := map[string]string{}
	for k, v := range t.namespaces {
		nss[k] = v
	}
	refs := append([]podRef(nil), t.refs...)
	t.mu.Unlock()
	return nss, refs
}

// writeNamespace writes the events of the tenant's namespace ns to events
// and the YAML of its pods to pods.
func writeNamespace(ctx context.Context, cs kubernetes.Interface, tn, ns string, events, pods *strings.Builder) {
	fmt.Fprintf(events, "# tenant %s, namespace %s\n", tn, ns)
	if el, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{}); err != nil {
		fmt.Fprintf(events, "error listing events: %v\n", err)
	} else {
		writeEvents(events, el.Items)
	}
	if pl, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}); err != nil {
		fmt.Fprintf(pods, "# tenant %s: error listing pods in %s: %v\n", tn, ns, err)
	} else {
		for i := range pl.Items {
			writePod(pods, tn, &pl.Items[i])
		}
	}
}

// writeNodes writes the GPU annotations of each of the tenant's nodes.
func writeNodes(ctx context.Context, cs kubernetes.Interface, tn string, nodes *strings.Builder) {
	if nl, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err != nil {
		fmt.Fprintf(nodes, "# tenant %s: error listing nodes: %v\n", tn, err)
	} else {
		for _, n := range nl.Items {
			writeNode(nodes, tn, &n)
		}
	}
}

// writeRefPods writes the YAML of the other cases' pods the case looked at
// (caseT.refs), each read again now.
func (t *caseT) writeRefPods(ctx context.Context, refs []podRef, pods *strings.Builder) {
	for _, ref := range refs {
		p, err := t.client(ref.tenant).CoreV1().Pods(ref.namespace).Get(ctx, ref.name, metav1.GetOptions{})
		if err != nil {
			fmt.Fprintf(pods, "# tenant %s: pod %s: %v\n", ref.tenant, ref, err)
			continue
		}
		writePod(pods, ref.tenant, p)
	}
}

func writeEvents(b *strings.Builder, evs []corev1.Event) {
	sort.Slice(evs, func(i, j int) bool { return eventTime(evs[i]).Time.Before(eventTime(evs[j]).Time) })
	if len(evs) == 0 {
		b.WriteString("(no events)\n")
	}
	for _, e := range evs {
		src := e.Source.Component
		if src == "" {
			src = e.ReportingController
		}
		count := ""
		if e.Count > 1 {
			count = fmt.Sprintf(" (x%d)", e.Count)
		}
		fmt.Fprintf(b, "%s %-7s %-18s %s/%s [%s]%s: %s\n", eventTime(e).UTC().Format("15:04:05.000"), e.Type, e.Reason,
			strings.ToLower(e.InvolvedObject.Kind), e.InvolvedObject.Name, src, count, e.Message)
	}
}

func eventTime(e corev1.Event) metav1.Time {
	switch {
	case !e.EventTime.IsZero():
		return metav1.Time{Time: e.EventTime.Time}
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp
	}
	return e.CreationTimestamp
}

func writePod(b *strings.Builder, tenant string, p *corev1.Pod) {
	c := p.DeepCopy()
	c.ManagedFields = nil
	y, err := yaml.Marshal(c)
	if err != nil {
		fmt.Fprintf(b, "# tenant %s: pod %s/%s: %v\n", tenant, p.Namespace, p.Name, err)
		return
	}
	fmt.Fprintf(b, "# tenant %s\n---\n%s", tenant, y)
}

func writeNode(b *strings.Builder, tenant string, n *corev1.Node) {
	alloc := n.Status.Allocatable[corev1.ResourceName(gpus.ResourceGPU)]
	fmt.Fprintf(b, "# tenant %s, node %s (allocatable %s: %s)\n", tenant, n.Name, gpus.ResourceGPU, alloc.String())
	for _, k := range []string{gpus.AnnoRegister, gpus.AnnoNodeLock, gpus.AnnoHandshake, gpus.AnnoCordon} {
		if v, ok := n.Annotations[k]; ok {
			fmt.Fprintf(b, "%s: %s\n", k, v)
		} else {
			fmt.Fprintf(b, "%s: (absent)\n", k)
		}
	}
	b.WriteString("\n")
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
