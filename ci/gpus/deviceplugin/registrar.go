package deviceplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// RegisterNode writes a worker's simulated GPUs onto its Node the way HAMi's
// mock device plugin expects them (hami.md §3): the JSON register annotation,
// the label gpu=on that selects HAMi's device-plugin DaemonSet, and the
// nvidia.com/gpu count in status.capacity and status.allocatable, which
// HAMi v2.10's scheduler uses as its registration gate (hami.md §1.5).
//
// It is idempotent: it only writes what differs, so calling it again is how a
// caller re-asserts the count after a kubelet restart zeroed it (a kubelet
// reconciles extended resources it has no device plugin for down to 0 when it
// re-registers; see KeepRegistered).
func RegisterNode(ctx context.Context, c kubernetes.Interface, l *lab.Lab, tenant string, w lab.Worker, nodeName string) error {
	if len(w.Cards()) == 0 {
		return fmt.Errorf("register GPUs on node %s: worker %q of tenant %q has no GPUs in the lab spec", nodeName, w.Name, tenant)
	}
	node, err := c.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("register GPUs on node %s: %w", nodeName, err)
	}
	register := gpus.EncodeRegister(gpus.Devices(l, tenant, w))
	if node.Annotations[gpus.AnnoRegister] != register || node.Labels[gpus.LabelGPUNode] != gpus.LabelGPUOn {
		patch := map[string]any{"metadata": map[string]any{
			"annotations": map[string]string{gpus.AnnoRegister: register},
			"labels":      map[string]string{gpus.LabelGPUNode: gpus.LabelGPUOn},
		}}
		if err := mergePatchNode(ctx, c, nodeName, patch); err != nil {
			return fmt.Errorf("register GPUs on node %s: annotate: %w", nodeName, err)
		}
	}
	want := *resource.NewQuantity(int64(gpus.GPUCapacity(l, w)), resource.DecimalSI)
	if !quantityIs(node.Status.Capacity, want) || !quantityIs(node.Status.Allocatable, want) {
		patch := map[string]any{"status": map[string]any{
			"capacity":    map[string]string{gpus.ResourceGPU: want.String()},
			"allocatable": map[string]string{gpus.ResourceGPU: want.String()},
		}}
		if err := mergePatchNode(ctx, c, nodeName, patch, "status"); err != nil {
			return fmt.Errorf("register GPUs on node %s: set %s capacity: %w", nodeName, gpus.ResourceGPU, err)
		}
	}
	return nil
}

// KeepRegistered calls RegisterNode now and then every interval until ctx is
// done, so a kubelet that zeroes the count resource is corrected within one
// interval. It returns the first error only if the first registration fails;
// later errors are retried silently at the next tick (the caller logs through
// onError when non-nil).
func KeepRegistered(ctx context.Context, c kubernetes.Interface, l *lab.Lab, tenant string, w lab.Worker, nodeName string, interval time.Duration, onError func(error)) error {
	if err := RegisterNode(ctx, c, l, tenant, w, nodeName); err != nil {
		return err
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := RegisterNode(ctx, c, l, tenant, w, nodeName); err != nil && onError != nil && ctx.Err() == nil {
				onError(err)
			}
		}
	}
}

func quantityIs(list corev1.ResourceList, want resource.Quantity) bool {
	q, ok := list[gpus.ResourceGPU]
	return ok && q.Cmp(want) == 0
}

func mergePatchNode(ctx context.Context, c kubernetes.Interface, name string, patch any, subresources ...string) error {
	b, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	_, err = c.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, b, metav1.PatchOptions{}, subresources...)
	return err
}
