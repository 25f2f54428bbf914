package stages

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/render"
)

// Diagnose writes what a user needs to understand a failed bring-up into
// dir (a private bundle directory state.Dir.NewDiagnostics made; the
// bundle is the one part of the state dir whose files Diagnose writes),
// best effort (every piece that cannot be collected is listed in
// errors.txt rather than aborting the rest):
//
//	error.txt                  the stage error
//	kind/                      kind export logs of the management cluster
//	management/tcp.yaml        every TenantControlPlane with its status
//	management/kamaji-pods.txt pods of kamaji-system and the tenant namespaces
//	management/events.txt      events of those namespaces
//	tenants/<t>/nodes.yaml     tenant nodes (conditions, annotations)
//	tenants/<t>/events.txt     tenant events, all namespaces
//	tenants/<t>/pods.txt       kube-system pods
//	tenants/<t>/logs/<pod>_<container>.log
//	                           logs of HAMi's pods (its device plugin and vGPU
//	                           monitor too) and the nvml-mock pods, init
//	                           containers included
//	workers/<node>.log         docker logs and kubelet journal of each worker
//
// Only what this state dir made is read from (owner.go): the kind cluster
// when it is this state dir's, the workers it started (ownedContainers);
// a foreign cluster of the lab's name is named in errors.txt instead.
func Diagnose(ctx context.Context, e *Env, failed *Error, dir string) error {
	b := &diagBundle{dir: dir}
	b.write("error.txt", []byte(failed.Error()+"\n"))
	// Only this state dir's cluster and containers (owner.go): a bring-up
	// that failed because a foreign cluster or container has the lab's
	// names must not run kind or journalctl against it.
	if owned, err := e.ownedKindCluster(ctx); err != nil {
		b.note(fmt.Errorf("kind export logs: not collected: %w", err))
	} else if owned {
		b.note(e.Kind.CollectLogs(ctx, e.Lab.Name, filepath.Join(dir, "kind")))
	}
	b.management(ctx, e)
	for _, t := range e.Lab.Tenants {
		b.tenant(ctx, e, t.Name)
	}
	b.workers(ctx, e)
	if len(b.errs) == 0 {
		return nil
	}
	var msg strings.Builder
	for _, err := range b.errs {
		msg.WriteString(err.Error() + "\n")
	}
	b.write("errors.txt", []byte(msg.String()))
	return errors.Join(b.errs...)
}

// diagBundle is one diagnostics directory being written: every file it
// could not collect is an error kept for errors.txt, and the rest goes on.
type diagBundle struct {
	dir  string
	errs []error
}

func (b *diagBundle) note(err error) {
	if err != nil {
		b.errs = append(b.errs, err)
	}
}

func (b *diagBundle) write(rel string, data []byte) {
	p := filepath.Join(b.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		b.note(err)
		return
	}
	b.note(os.WriteFile(p, data, 0o600))
}

// management writes the TenantControlPlanes, and the pods and events of
// Kamaji's namespace and of each tenant's namespace.
func (b *diagBundle) management(ctx context.Context, e *Env) {
	mc, err := e.managementClients()
	if err != nil {
		b.note(err)
		return
	}
	if l, err := mc.Dynamic.Resource(tcpGVR).Namespace("").List(ctx, metav1.ListOptions{}); err == nil {
		y, err := yaml.Marshal(l.Items)
		b.note(err)
		b.write("management/tcp.yaml", y)
	} else {
		b.note(fmt.Errorf("list TenantControlPlanes: %w", err))
	}
	var pods, events strings.Builder
	for _, ns := range append([]string{KamajiNamespace}, e.Lab.TenantNames()...) {
		podsTable(ctx, mc, ns, &pods, b.note)
		eventsTable(ctx, mc, ns, &events, b.note)
	}
	b.write("management/kamaji-pods.txt", []byte(pods.String()))
	b.write("management/events.txt", []byte(events.String()))
}

// tenant writes a tenant's nodes, events, kube-system pods and the logs of
// HAMi's and nvml-mock's pods; a tenant that never came up has nothing
// (its TenantControlPlane's status says why).
func (b *diagBundle) tenant(ctx context.Context, e *Env, name string) {
	tc, err := e.tenantClients(name)
	if err != nil {
		return
	}
	base := filepath.Join("tenants", name)
	if nodes, err := tc.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err == nil {
		y, _ := yaml.Marshal(nodes.Items)
		b.write(filepath.Join(base, "nodes.yaml"), y)
	} else {
		b.note(fmt.Errorf("tenant %s: list nodes: %w", name, err))
	}
	var events, pods strings.Builder
	eventsTable(ctx, tc, "", &events, b.note)
	podsTable(ctx, tc, "kube-system", &pods, b.note)
	b.write(filepath.Join(base, "events.txt"), []byte(events.String()))
	b.write(filepath.Join(base, "pods.txt"), []byte(pods.String()))
	for file, data := range componentLogs(ctx, tc, b.note) {
		b.write(filepath.Join(base, "logs", file), data)
	}
}

// workers writes docker logs and the kubelet's journal of each worker this
// state dir started.
func (b *diagBundle) workers(ctx context.Context, e *Env) {
	names, err := e.ownedContainers(ctx)
	if err != nil {
		b.note(err)
		return
	}
	for _, n := range names {
		var w strings.Builder
		out, err := e.Docker.Logs(ctx, n)
		w.Write(out)
		if err != nil {
			fmt.Fprintf(&w, "\n(docker logs: %v)\n", err)
		}
		j, err := e.Docker.Exec(ctx, n, nil, "journalctl", "--no-pager", "-u", "kubelet", "-n", "300")
		w.WriteString("\n--- journalctl -u kubelet ---\n")
		w.Write(j)
		if err != nil {
			fmt.Fprintf(&w, "\n(journalctl: %v)\n", err)
		}
		b.write(filepath.Join("workers", n+".log"), []byte(w.String()))
	}
}

func podsTable(ctx context.Context, c *Clients, ns string, w io.Writer, note func(error)) {
	pl, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
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

func eventsTable(ctx context.Context, c *Clients, ns string, w io.Writer, note func(error)) {
	el, err := c.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
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
func componentLogs(ctx context.Context, c *Clients, note func(error)) map[string][]byte {
	pl, err := c.Kube.CoreV1().Pods(render.HAMiNamespace).List(ctx, metav1.ListOptions{})
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
			out[p.Name+"_"+c2.Name+".log"] = podLog(ctx, c, p.Namespace, p.Name, c2.Name)
		}
	}
	return out
}

func podLog(ctx context.Context, c *Clients, ns, pod, container string) []byte {
	tail := int64(500)
	b, err := c.Kube.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Container: container, TailLines: &tail}).DoRaw(ctx)
	if err != nil {
		return []byte("(logs unavailable: " + err.Error() + ")\n")
	}
	return b
}
