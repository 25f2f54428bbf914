package diagnostics

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

func podsTable(ctx context.Context, kube kubernetes.Interface, ns string, w io.Writer, note func(error)) {
	pl, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		note(fmt.Errorf("list pods in %q: %w", ns, err))
		return
	}
	for _, p := range pl.Items {
		fmt.Fprintf(w, "%s/%s\t%s\tnode=%s\t%s\n", p.Namespace, p.Name, p.Status.Phase, p.Spec.NodeName, containerStates(p))
	}
}

func containerStates(p corev1.Pod) string {
	var out []string
	for _, s := range p.Status.ContainerStatuses {
		st := "running"
		switch {
		case s.State.Waiting != nil:
			st = "waiting " + s.State.Waiting.Reason + " " + s.State.Waiting.Message
		case s.State.Terminated != nil:
			st = "terminated " + s.State.Terminated.Reason
		}
		out = append(out, fmt.Sprintf("%s(%s restarts=%d)", s.Name, strings.TrimSpace(st), s.RestartCount))
	}
	return strings.Join(out, " ")
}

func eventsTable(ctx context.Context, kube kubernetes.Interface, ns string, w io.Writer, note func(error)) {
	el, err := kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		note(fmt.Errorf("list events in %q: %w", ns, err))
		return
	}
	items := el.Items
	sort.Slice(items, func(i, j int) bool { return items[i].LastTimestamp.Before(&items[j].LastTimestamp) })
	for _, ev := range items {
		fmt.Fprintf(w, "%s\t%s\t%s %s/%s\t%s\t%s\n", ev.LastTimestamp.UTC().Format("15:04:05"), ev.Type,
			ev.InvolvedObject.Kind, ev.InvolvedObject.Namespace, ev.InvolvedObject.Name, ev.Reason, ev.Message)
	}
}

// componentLogs are the logs of every container, init containers included,
// of the tenant's HAMi pods (the chart names them after release "hami":
// scheduler, device plugin) and of the mock NVML library's pods, keyed
// <pod>_<container>.log. The nvml-mock pod's init container is the one that
// installs the library: when it fails, its log is the only one that says
// why, and the device plugin on that node then never starts.
func componentLogs(ctx context.Context, kube kubernetes.Interface, note func(error)) map[string][]byte {
	pl, err := kube.CoreV1().Pods(render.HAMiNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		note(fmt.Errorf("list pods in %q for their logs: %w", render.HAMiNamespace, err))
		return nil
	}
	out := map[string][]byte{}
	for _, p := range pl.Items {
		if !strings.HasPrefix(p.Name, render.HAMiRelease+"-") && !strings.HasPrefix(p.Name, render.NVMLMockName+"-") {
			continue
		}
		for _, c2 := range append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
			out[p.Name+"_"+c2.Name+".log"] = podLog(ctx, kube, p.Namespace, p.Name, c2.Name)
		}
	}
	return out
}

func podLog(ctx context.Context, kube kubernetes.Interface, ns, pod, container string) []byte {
	tail := int64(500)
	b, err := kube.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Container: container, TailLines: &tail}).DoRaw(ctx)
	if err != nil {
		return []byte("(logs unavailable: " + err.Error() + ")\n")
	}
	return b
}
