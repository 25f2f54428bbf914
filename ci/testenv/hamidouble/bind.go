package hamidouble

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

func eventScheme() *runtime.Scheme { return scheme.Scheme }

func (d *double) serveBind(w http.ResponseWriter, r *http.Request) {
	var args extenderv1.ExtenderBindingArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil || args.PodName == "" || args.Node == "" {
		http.Error(w, fmt.Sprintf("%s: body is not ExtenderBindingArgs with podName and node (%v)", Banner, err), http.StatusBadRequest)
		return
	}
	writeJSON(w, d.bind(r.Context(), &args))
}

// bind is HAMi's Bind verb (Scheduler.Bind, pkg/scheduler/scheduler.go
// @v2.10.0) with its API calls: the pod and node come from the informer
// caches; take the node lock (GPU pods only), PATCH the pod with
// bind-phase=allocating and bind-time, POST the Binding, and emit
// BindingSucceed. On failure release the lock if it names this pod and emit
// BindingFailed with the error.
func (d *double) bind(ctx context.Context, args *extenderv1.ExtenderBindingArgs) *extenderv1.ExtenderBindingResult {
	key := args.PodNamespace + "/" + args.PodName
	pod, err := d.pods.Pods(args.PodNamespace).Get(args.PodName)
	if err != nil {
		d.forget(args.PodUID)
		d.log.Warn(Banner+": bind: pod not in cache", "pod", key, "err", err)
		return &extenderv1.ExtenderBindingResult{Error: err.Error()}
	}
	if _, err := d.nodes.Get(args.Node); err != nil {
		d.forget(pod.UID)
		d.recorder.Event(pod, corev1.EventTypeWarning, eventBindingFailed, fmt.Sprintf("failed to get node %s", args.Node))
		return &extenderv1.ExtenderBindingResult{Error: err.Error()}
	}
	req, err := readPodRequestWith(pod, d.requestDefaults())
	gpu := err == nil && req.hasGPU()
	if gpu && !d.currentFaults().NoNodeLock {
		err = d.lockNode(ctx, args.Node, pod.Namespace, pod.Name)
	}
	if err == nil {
		err = d.markAllocating(ctx, pod)
	}
	if err == nil {
		err = d.client.CoreV1().Pods(pod.Namespace).Bind(ctx, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: args.PodUID},
			Target:     corev1.ObjectReference{Kind: "Node", Name: args.Node},
		}, metav1.CreateOptions{})
	}
	if err != nil {
		if gpu {
			if rerr := d.releaseNodeLock(ctx, args.Node, pod.Namespace, pod.Name, false); rerr != nil {
				d.log.Warn(Banner+": bind: release node lock", "node", args.Node, "err", rerr)
			}
		}
		d.recorder.Event(pod, corev1.EventTypeWarning, eventBindingFailed, err.Error())
		d.log.Debug(Banner+": bind failed", "pod", key, "node", args.Node, "err", err)
		return &extenderv1.ExtenderBindingResult{Error: err.Error()}
	}
	d.recorder.Eventf(pod, corev1.EventTypeNormal, eventBindingSucceed, "Successfully binding node [%s] to %s", args.Node, key)
	d.log.Debug(Banner+": bound", "pod", key, "node", args.Node)
	return &extenderv1.ExtenderBindingResult{}
}

func (d *double) markAllocating(ctx context.Context, pod *corev1.Pod) error {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		gpus.AnnoBindPhase: gpus.BindPhaseAllocating,
		gpus.AnnoBindTime:  strconv.FormatInt(d.now().Unix(), 10),
	}}})
	if _, err := d.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("patch pod %s bind-phase: %w", podKey(pod), err)
	}
	return nil
}
