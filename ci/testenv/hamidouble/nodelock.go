package hamidouble

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// errContention is the suffix of both of HAMi's contention messages.
var errContention = errors.New("node lock contention")

// LockDecision is what Bind does about an existing node lock.
type LockDecision int

const (
	// LockFree: no lock; take it.
	LockFree LockDecision = iota
	// LockHeld: the lock already names this pod.
	LockHeld
	// LockSteal: expired, or its owner pod is gone (dangling); release and take it.
	LockSteal
	// LockContended: held by another live pod within the timeout.
	LockContended
)

// DecideLock applies HAMi's LockNode rules (hami.md §5) to an existing lock
// value: empty → free; expired (older than timeout) → steal; naming this pod
// → held; naming a pod that no longer exists → steal; otherwise contended.
// An unparseable value is treated as expired, so a corrupt lock cannot wedge
// a node forever.
func DecideLock(value, namespace, pod string, now time.Time, timeout time.Duration, ownerExists func(ns, name string) bool) LockDecision {
	if value == "" {
		return LockFree
	}
	l, err := gpus.ParseLock(value)
	if err != nil || now.Sub(l.Time) > timeout {
		return LockSteal
	}
	if l.Pod != "" && l.Namespace == namespace && l.Pod == pod {
		return LockHeld
	}
	if l.Pod != "" && !ownerExists(l.Namespace, l.Pod) {
		return LockSteal
	}
	return LockContended
}

func (d *Double) nodeMutex(node string) *sync.Mutex {
	m, _ := d.nodeLocks.LoadOrStore(node, &sync.Mutex{})
	return m.(*sync.Mutex)
}

// lockNode takes hami.io/mutex.lock on the node for the pod.
func (d *Double) lockNode(ctx context.Context, node, namespace, pod string) error {
	nodes := d.cfg.Client.CoreV1().Nodes()
	n, err := nodes.Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("lock node %s: %w", node, err)
	}
	exists := func(ns, name string) bool {
		_, err := d.cfg.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		return !apierrors.IsNotFound(err)
	}
	switch DecideLock(n.Annotations[gpus.AnnoNodeLock], namespace, pod, time.Now(), d.cfg.NodeLockTimeout, exists) {
	case LockHeld:
		return nil
	case LockContended:
		return fmt.Errorf("node %s has been locked within %v: %w", node, d.cfg.NodeLockTimeout, errContention)
	case LockSteal:
		d.log.Debug(Banner+": releasing expired or dangling node lock", "node", node, "lock", n.Annotations[gpus.AnnoNodeLock])
		if err := d.patchLock(ctx, node, n.ResourceVersion, nil); err != nil {
			return fmt.Errorf("release stale lock on node %s: %w", node, err)
		}
	}
	return d.setNodeLock(ctx, node, namespace, pod)
}

// setNodeLock writes the lock under the in-process per-node mutex, re-reading
// the node first; a lock that appeared meanwhile is contention ("is locked").
func (d *Double) setNodeLock(ctx context.Context, node, namespace, pod string) error {
	m := d.nodeMutex(node)
	m.Lock()
	defer m.Unlock()
	for attempt := 0; ; attempt++ {
		n, err := d.cfg.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("lock node %s: %w", node, err)
		}
		if _, ok := n.Annotations[gpus.AnnoNodeLock]; ok {
			return fmt.Errorf("node %s is locked: %w", node, errContention)
		}
		value := gpus.LockValue(time.Now(), namespace, pod)
		err = d.patchLock(ctx, node, n.ResourceVersion, &value)
		if err == nil {
			d.log.Debug(Banner+": node lock set", "node", node, "lock", value)
			return nil
		}
		if !apierrors.IsConflict(err) || attempt >= 4 {
			return fmt.Errorf("lock node %s: %w", node, err)
		}
	}
}

// patchLock sets (value != nil) or removes the lock with a merge patch that
// carries the node's resourceVersion (optimistic concurrency).
func (d *Double) patchLock(ctx context.Context, node, rv string, value *string) error {
	var v any
	if value != nil {
		v = *value
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"annotations":     map[string]any{gpus.AnnoNodeLock: v},
		"resourceVersion": rv,
	}})
	_, err := d.cfg.Client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}
