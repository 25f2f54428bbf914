package deviceplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// Finalizer finishes every HAMi bind the way HAMi's real device plugin does
// at the end of Allocate (HAMi v2.10.0
// pkg/device-plugin/nvidiadevice/nvinternal/plugin/server.go:910 calls
// PodAllocationTrySuccess, plugin/util.go:388): the pod gets
// hami.io/bind-phase=success and its hami.io/vgpu-devices-to-allocate erased,
// and the node lock hami.io/mutex.lock is released when the pod owns it.
// Without it, a lab running HAMi's mock device plugin stalls every further
// bind on a node for the node-lock timeout (5 minutes).
//
// Client should not be throttled below the bind rate: each finished bind
// costs three API calls, so client-go's default QPS 5 / burst 10 would stall
// a burst of binds for seconds (use QPS ≥ 50). It needs get, list, watch and
// patch on pods and get and patch on nodes.
type Finalizer struct {
	Client kubernetes.Interface
	// Log receives one line per finished bind and per error; nil discards.
	Log *slog.Logger
	// Workers is how many binds are finished in parallel; default 4.
	Workers int
}

// Run watches pods that are bound to a node and in bind-phase allocating, and
// finishes each one. It blocks until ctx is done and returns an error only if
// the pod cache cannot be synced.
func (f *Finalizer) Run(ctx context.Context) error {
	log := f.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	workers := f.Workers
	if workers <= 0 {
		workers = 4
	}
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](20*time.Millisecond, 5*time.Second),
		workqueue.TypedRateLimitingQueueConfig[types.NamespacedName]{Name: "gpus-bind-finalizer"})
	defer queue.ShutDown()

	factory := informers.NewSharedInformerFactoryWithOptions(f.Client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermNotEqualSelector("spec.nodeName", "").String()
		}))
	lister, err := queueUnfinished(factory, queue)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("bind finalizer: %v cache did not sync", typ)
		}
	}

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { f.work(ctx, log, queue, lister) })
	}
	<-ctx.Done()
	queue.ShutDown()
	wg.Wait()
	return nil
}

// bindQueue holds the keys of the pods whose bind is to be finished.
type bindQueue = workqueue.TypedRateLimitingInterface[types.NamespacedName]

// queueUnfinished has the factory's pod informer put every pod that
// NeedsFinish, as it is added or updated, on the queue, and returns the
// informer's lister.
func queueUnfinished(factory informers.SharedInformerFactory, queue bindQueue) (corelisters.PodLister, error) {
	podInformer := factory.Core().V1().Pods()
	enqueue := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok && NeedsFinish(p) {
			queue.Add(types.NamespacedName{Namespace: p.Namespace, Name: p.Name})
		}
	}
	if _, err := podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, n any) { enqueue(n) },
	}); err != nil {
		return nil, fmt.Errorf("bind finalizer: pod informer: %w", err)
	}
	return podInformer.Lister(), nil
}

// work finishes the binds of the queued pods, as the cache shows them,
// until the queue shuts down. A failed finish is retried with backoff
// unless ctx is done.
func (f *Finalizer) work(ctx context.Context, log *slog.Logger, queue bindQueue, lister corelisters.PodLister) {
	for {
		key, shutdown := queue.Get()
		if shutdown {
			return
		}
		pod, err := lister.Pods(key.Namespace).Get(key.Name)
		switch {
		case apierrors.IsNotFound(err):
			queue.Forget(key)
		case err != nil:
			queue.AddRateLimited(key)
		case !NeedsFinish(pod):
			queue.Forget(key)
		default:
			if err := FinishBind(ctx, f.Client, pod); err != nil {
				if ctx.Err() == nil {
					log.Warn("bind finalizer: retrying", "pod", key.String(), "err", err)
					queue.AddRateLimited(key)
				}
			} else {
				log.Info("bind finished", "pod", key.String(), "node", pod.Spec.NodeName)
				queue.Forget(key)
			}
		}
		queue.Done(key)
	}
}

// NeedsFinish reports whether a pod is bound by HAMi and waits for the device
// plugin's Allocate: spec.nodeName set and hami.io/bind-phase=allocating.
func NeedsFinish(p *corev1.Pod) bool {
	return p.Spec.NodeName != "" && p.Annotations[gpus.AnnoBindPhase] == gpus.BindPhaseAllocating
}

// ErasedFor is the hami.io/vgpu-devices-to-allocate value once every
// container is allocated: one ";" per container entry of the current value,
// or per init and app container when the value is missing or unreadable.
func ErasedFor(p *corev1.Pod) string {
	if devs, err := gpus.DecodePodDevices(p.Annotations[gpus.AnnoDevicesToAlloc]); err == nil && len(devs) > 0 {
		return gpus.Erased(len(devs))
	}
	return gpus.Erased(len(p.Spec.InitContainers) + len(p.Spec.Containers))
}

// FinishBind does the real device plugin's last step for one pod: patch
// bind-phase=success and the erased device string, then release the node
// lock if (and only if) it names this pod or is a legacy owner-less value.
func FinishBind(ctx context.Context, c kubernetes.Interface, pod *corev1.Pod) error {
	node := pod.Spec.NodeName
	if node == "" {
		return fmt.Errorf("finish bind of pod %s/%s: spec.nodeName is empty (the pod is not bound yet)", pod.Namespace, pod.Name)
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		gpus.AnnoBindPhase:      gpus.BindPhaseSuccess,
		gpus.AnnoDevicesToAlloc: ErasedFor(pod),
	}}})
	_, err := c.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("finish bind of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	// A deleted pod's lock is released too: HAMi would treat it as dangling.
	if err := ReleaseNodeLock(ctx, c, node, pod.Namespace, pod.Name); err != nil {
		return fmt.Errorf("finish bind of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

// lockRetry spaces the attempts of ReleaseNodeLock: ten, 10 ms apart
// growing to about 43 ms (about 210 ms in all), as HAMi's own binds on the
// node patch its annotations meanwhile.
var lockRetry = wait.Backoff{Steps: 10, Duration: 10 * time.Millisecond, Factor: 1.2, Jitter: 0.1}

// ReleaseNodeLock removes hami.io/mutex.lock from the node if the lock names
// the pod (or is a legacy owner-less value), with a merge patch guarded by
// the node's resourceVersion; a conflict re-reads the node and tries again
// (client-go's retry.RetryOnConflict, which returns the last conflict when
// the attempts run out).
func ReleaseNodeLock(ctx context.Context, c kubernetes.Interface, nodeName, namespace, pod string) error {
	return retry.RetryOnConflict(lockRetry, func() error {
		node, err := c.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("release node lock on node %s: %w", nodeName, err)
		}
		v, ok := node.Annotations[gpus.AnnoNodeLock]
		if !ok || !gpus.OwnedBy(v, namespace, pod) {
			return nil
		}
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
			"annotations":     map[string]any{gpus.AnnoNodeLock: nil},
			"resourceVersion": node.ResourceVersion,
		}})
		if _, err := c.CoreV1().Nodes().Patch(ctx, nodeName, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("release node lock %q on node %s: %w", v, nodeName, err)
		}
		return nil
	})
}
