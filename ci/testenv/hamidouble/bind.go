package hamidouble

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

func eventScheme() *runtime.Scheme { return scheme.Scheme }

func (d *Double) serveBind(w http.ResponseWriter, r *http.Request) {
	var args extenderv1.ExtenderBindingArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil || args.PodName == "" || args.Node == "" {
		http.Error(w, fmt.Sprintf("%s: body is not ExtenderBindingArgs with podName and node (%v)", Banner, err), http.StatusBadRequest)
		return
	}
	writeJSON(w, d.Bind(r.Context(), &args))
}

// Bind is HAMi's Bind verb (hami.md §1.4): take the node lock (GPU pods
// only), mark the pod bind-phase=allocating with bind-time, create the
// Binding, and emit BindingSucceed; on failure release the lock if this pod
// holds it and emit BindingFailed with the error.
func (d *Double) Bind(ctx context.Context, args *extenderv1.ExtenderBindingArgs) *extenderv1.ExtenderBindingResult {
	pods := d.cfg.Client.CoreV1().Pods(args.PodNamespace)
	pod, err := pods.Get(ctx, args.PodName, metav1.GetOptions{})
	if err != nil {
		d.log.Warn(Banner+": bind: get pod", "pod", args.PodNamespace+"/"+args.PodName, "err", err)
		return &extenderv1.ExtenderBindingResult{Error: err.Error()}
	}
	req, err := ReadPodRequest(pod, d.cfg.GPUPolicy, d.cfg.NodePolicy)
	locked := false
	if err == nil && req.HasGPU() && !d.currentFaults().NoNodeLock {
		err = d.lockNode(ctx, args.Node, pod.Namespace, pod.Name)
		locked = err == nil
	}
	if err == nil {
		err = d.markAllocating(ctx, pod)
	}
	if err == nil {
		err = pods.Bind(ctx, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
			Target:     corev1.ObjectReference{Kind: "Node", Name: args.Node},
		}, metav1.CreateOptions{})
	}
	if err != nil {
		if locked {
			if rerr := gpus.ReleaseNodeLock(ctx, d.cfg.Client, args.Node, pod.Namespace, pod.Name); rerr != nil {
				d.log.Warn(Banner+": bind: release node lock", "node", args.Node, "err", rerr)
			}
		}
		d.recorder.Event(pod, corev1.EventTypeWarning, EventBindingFailed, err.Error())
		d.log.Debug(Banner+": bind failed", "pod", podKey(pod), "node", args.Node, "err", err)
		return &extenderv1.ExtenderBindingResult{Error: err.Error()}
	}
	d.recorder.Eventf(pod, corev1.EventTypeNormal, EventBindingSucceed, "Successfully binding node [%s] to %s", args.Node, podKey(pod))
	d.log.Debug(Banner+": bound", "pod", podKey(pod), "node", args.Node)
	return &extenderv1.ExtenderBindingResult{}
}

func (d *Double) markAllocating(ctx context.Context, pod *corev1.Pod) error {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		gpus.AnnoBindPhase: gpus.BindPhaseAllocating,
		gpus.AnnoBindTime:  strconv.FormatInt(time.Now().Unix(), 10),
	}}})
	if _, err := d.cfg.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("patch pod %s bind-phase: %w", podKey(pod), err)
	}
	return nil
}
