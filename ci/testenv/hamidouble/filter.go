package hamidouble

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// HAMi's event reasons.
const (
	eventFilteringSucceed = "FilteringSucceed"
	eventFilteringFailed  = "FilteringFailed"
	eventBindingSucceed   = "BindingSucceed"
	eventBindingFailed    = "BindingFailed"
)

func (d *double) serveFilter(w http.ResponseWriter, r *http.Request) {
	var args extenderv1.ExtenderArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil || args.Pod == nil {
		http.Error(w, fmt.Sprintf("%s: body is not ExtenderArgs with a pod (%v)", Banner, err), http.StatusBadRequest)
		return
	}
	writeJSON(w, d.filter(r.Context(), &args))
}

// filter is HAMi's Filter verb (HAMi v2.10.0 pkg/scheduler/scheduler.go:1067). On success it has already
// annotated and labelled the pod and counts it as usage.
func (d *double) filter(ctx context.Context, args *extenderv1.ExtenderArgs) *extenderv1.ExtenderFilterResult {
	pod := args.Pod
	names := candidateNodes(args)
	f := d.currentFaults()
	req, err := readPodRequestWith(pod, d.requestDefaults())
	if err != nil {
		d.log.Warn(Banner+": filter: bad request", "pod", podKey(pod), "err", err)
		return &extenderv1.ExtenderFilterResult{Error: err.Error()}
	}
	if !req.hasGPU() {
		return &extenderv1.ExtenderFilterResult{Nodes: args.Nodes, NodeNames: args.NodeNames}
	}

	// Like HAMi's Filter route, wait for the first registration pass.
	select {
	case <-d.reg.synced:
	case <-ctx.Done():
		return &extenderv1.ExtenderFilterResult{Error: "context cancelled"}
	}

	fits, best, ok := d.fitAndReserve(pod, names, req, f)
	failed := failedNodes(fits)
	if !ok {
		d.recordFilterFailure(pod, fits)
		d.log.Debug(Banner+": filter: no node fits", "pod", podKey(pod), "failedNodes", failed)
		return noFitResult(args, failed)
	}

	devs := best.Devices.Encode()
	if err := d.annotateFiltered(ctx, pod, best.Node, devs); err != nil {
		d.forget(pod.UID)
		d.log.Warn(Banner+": filter: annotate pod", "pod", podKey(pod), "err", err)
		return &extenderv1.ExtenderFilterResult{Error: err.Error()}
	}
	scores := fitScores(fits)
	d.recorder.Eventf(pod, corev1.EventTypeNormal, eventFilteringSucceed, "find fit node(%s), %d nodes not fit, %d nodes fit(%s)",
		best.Node, len(failed), len(scores), strings.Join(scores, ","))
	d.log.Debug(Banner+": filter: fit", "pod", podKey(pod), "node", best.Node, "devices", devs)
	return fitResult(args, best.Node, failed)
}

// candidateNodes are the names of the nodes kube-scheduler asks about, in
// either form of ExtenderArgs (node names, or whole nodes).
func candidateNodes(args *extenderv1.ExtenderArgs) []string {
	var names []string
	if args.NodeNames != nil {
		names = *args.NodeNames
	} else if args.Nodes != nil {
		for _, n := range args.Nodes.Items {
			names = append(names, n.Name)
		}
	}
	return names
}

// fitAndReserve fits the pod's request to each named node and picks one
// by the node policy; the pick is counted as the pod's usage at once, under
// the double's lock, so the next Filter sees it.
func (d *double) fitAndReserve(pod *corev1.Pod, names []string, req podRequest, f Faults) ([]nodeFit, nodeFit, bool) {
	d.mu.Lock()
	// A pod's own earlier allocation is dropped before it is filtered again.
	delete(d.usage, pod.UID)
	fits := make([]nodeFit, 0, len(names))
	for _, name := range names {
		cards, registered := d.nodeCards(name, f)
		if !registered {
			// getNodesUsage's FailedNodes value (pkg/scheduler/scheduler.go@v2.10.0).
			fits = append(fits, nodeFit{Node: name, Reason: reasonNodeUnregistered})
			continue
		}
		fits = append(fits, fitNode(cards, req, f))
	}
	best, ok := pickNode(fits, f.nodePolicy(req))
	if ok {
		devs := best.Devices.Encode()
		d.usage[pod.UID] = podUsage{Namespace: pod.Namespace, Name: pod.Name, Node: best.Node, Devices: devs}
	}
	// Deleted pods this Filter counted have met the race: it is over.
	if d.forgetDeletedLocked(func(u podUsage) bool { return slices.Contains(names, u.Node) }) > 0 {
		d.raceArmed = false
	}
	d.mu.Unlock()
	return fits, best, ok
}

// failedNodes are Filter's FailedNodes: each node that does not fit, with
// its reason.
func failedNodes(fits []nodeFit) extenderv1.FailedNodesMap {
	failed := extenderv1.FailedNodesMap{}
	for _, fit := range fits {
		if !fit.fits() {
			failed[fit.Node] = fit.Reason
		}
	}
	return failed
}

// noFitResult answers that no node fits, in the form kube-scheduler asked
// in.
func noFitResult(args *extenderv1.ExtenderArgs, failed extenderv1.FailedNodesMap) *extenderv1.ExtenderFilterResult {
	res := &extenderv1.ExtenderFilterResult{FailedNodes: failed, NodeNames: &[]string{}}
	if args.NodeNames == nil && args.Nodes != nil {
		res.Nodes, res.NodeNames = &corev1.NodeList{}, nil
	}
	return res
}

// fitScores are the nodes that fit with their scores, "node:score", as
// HAMi's FilteringSucceed event lists them.
func fitScores(fits []nodeFit) []string {
	var scores []string
	for _, fit := range fits {
		if fit.fits() {
			scores = append(scores, fmt.Sprintf("%s:%.2f", fit.Node, fit.Score))
		}
	}
	return scores
}

// fitResult answers with the one node picked, in the form kube-scheduler
// asked in.
func fitResult(args *extenderv1.ExtenderArgs, node string, failed extenderv1.FailedNodesMap) *extenderv1.ExtenderFilterResult {
	res := &extenderv1.ExtenderFilterResult{NodeNames: &[]string{node}, FailedNodes: failed}
	if args.NodeNames == nil && args.Nodes != nil {
		res.NodeNames = nil
		res.Nodes = &corev1.NodeList{}
		for _, n := range args.Nodes.Items {
			if n.Name == node {
				res.Nodes.Items = append(res.Nodes.Items, n)
			}
		}
	}
	return res
}

// reasonNodeUnregistered is Filter's FailedNodes value for a node HAMi has
// not registered (yet); kube-scheduler shows it as "1 node unregistered".
const reasonNodeUnregistered = "node unregistered"

// node returns the node from the informer cache.
func (d *double) node(name string) (*corev1.Node, error) {
	if d.nodes == nil {
		return nil, fmt.Errorf("node %s not found: informer not started", name)
	}
	n, err := d.nodes.Get(name)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", name, err)
	}
	return n, nil
}

// annotateFiltered writes Filter's side effects onto the pod (HAMi v2.10.0
// pkg/scheduler/scheduler.go:1125-1139): vgpu-node (annotation and label), vgpu-time and both device strings.
func (d *double) annotateFiltered(ctx context.Context, pod *corev1.Pod, node, devs string) error {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"annotations": map[string]string{
			gpus.AnnoVGPUNode:         node,
			gpus.AnnoVGPUTime:         strconv.FormatInt(time.Now().Unix(), 10),
			gpus.AnnoDevicesToAlloc:   devs,
			gpus.AnnoDevicesAllocated: devs,
		},
		"labels": map[string]string{gpus.AnnoVGPUNode: node},
	}})
	_, err := d.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("annotate pod %s: %w", podKey(pod), err)
	}
	return nil
}

// recordFilterFailure emits HAMi's failure events: one per card-level reason
// ("N nodes Reason(node,…)"), then "no available node, N nodes do not meet".
// Node-level reasons get no event of their own (HAMI-FACTS.md §4.3).
func (d *double) recordFilterFailure(pod *corev1.Pod, fits []nodeFit) {
	byReason := map[string][]string{}
	for _, fit := range fits {
		for _, r := range fit.CardReasons {
			byReason[r] = append(byReason[r], fit.Node)
		}
	}
	reasons := make([]string, 0, len(byReason))
	for r := range byReason {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		d.recorder.Eventf(pod, corev1.EventTypeWarning, eventFilteringFailed, "%d nodes %s(%s)",
			len(byReason[r]), r, strings.Join(byReason[r], ","))
	}
	d.recorder.Eventf(pod, corev1.EventTypeWarning, eventFilteringFailed, "no available node, %d nodes do not meet", len(fits))
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }
