package suite

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

// componentLogsFile is the diagnostics file of a failed case that holds the
// logs of the GPU components every worker runs in the real lab.
const componentLogsFile = "gpu-components.log"

// componentLogTail bounds each container's log: a failed case keeps its
// diagnostics in results.json, and the plugin logs a line per Allocate.
const componentLogTail = int64(200)

// componentDaemonSets are the DaemonSets whose pods' logs a failed case
// keeps: HAMi's device plugin (registration, Allocate, the bind phase and
// the node lock are its code) and the mock NVML library it reads the cards
// from, whose init container installs the library: when that fails, its log
// is the only one that says why. Where neither DaemonSet exists (the local
// test environment, a platform without them) nothing is written.
var componentDaemonSets = []string{devicePluginDaemonSet, render.NVMLMockName}

// writeComponentLogs writes, for one tenant, the log of every container of
// the pods of componentDaemonSets, init containers first, each under a
// header naming the tenant, pod, node and container. Errors are written in
// place of what could not be read.
func writeComponentLogs(ctx context.Context, cs kubernetes.Interface, tenant string, b *strings.Builder) {
	for _, name := range componentDaemonSets {
		ds, err := cs.AppsV1().DaemonSets(devicePluginNamespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			fmt.Fprintf(b, "# tenant %s: DaemonSet %s/%s: %v\n", tenant, devicePluginNamespace, name, err)
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
		if err != nil {
			fmt.Fprintf(b, "# tenant %s: DaemonSet %s/%s: selector: %v\n", tenant, devicePluginNamespace, name, err)
			continue
		}
		pl, err := cs.CoreV1().Pods(devicePluginNamespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			fmt.Fprintf(b, "# tenant %s: pods of DaemonSet %s/%s: %v\n", tenant, devicePluginNamespace, name, err)
			continue
		}
		if len(pl.Items) == 0 {
			fmt.Fprintf(b, "# tenant %s: DaemonSet %s/%s has no pods\n\n", tenant, devicePluginNamespace, name)
		}
		for _, p := range pl.Items {
			for _, c := range p.Spec.InitContainers {
				writeContainerLog(ctx, cs, tenant, &p, "init container "+c.Name, c.Name, b)
			}
			for _, c := range p.Spec.Containers {
				writeContainerLog(ctx, cs, tenant, &p, "container "+c.Name, c.Name, b)
			}
		}
	}
}

func writeContainerLog(ctx context.Context, cs kubernetes.Interface, tenant string, p *corev1.Pod, what, container string,
	b *strings.Builder) {
	fmt.Fprintf(b, "# tenant %s, pod %s/%s on node %s, %s (last %d lines)\n",
		tenant, p.Namespace, p.Name, p.Spec.NodeName, what, componentLogTail)
	tail := componentLogTail
	out, err := cs.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: container, TailLines: &tail}).DoRaw(ctx)
	if err != nil {
		fmt.Fprintf(b, "(log of pod %s/%s container %s unavailable: %v)\n\n", p.Namespace, p.Name, container, err)
		return
	}
	b.Write(out)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
}
