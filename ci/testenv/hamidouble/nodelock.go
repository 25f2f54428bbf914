package hamidouble

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// errContention is the suffix of both of HAMi's contention messages.
var errContention = errors.New("node lock contention")

// lockDecision is what Bind does about an existing node lock.
type lockDecision int

const (
	// lockFree: no lock; take it.
	lockFree lockDecision = iota
	// lockHeld: the lock already names this pod.
	lockHeld
	// lockSteal: expired, or its owner pod is gone (dangling); release and take it.
	lockSteal
	// lockContended: held by another live pod within the timeout.
	lockContended
)

// decideLock applies HAMi's LockNode rules (v2.10.0
// pkg/util/nodelock/nodelock.go:241) to an existing lock
// value: empty → free; expired (older than timeout) → steal; naming this pod
// → held; naming a pod that no longer exists → steal; otherwise contended.
// An unparseable value is treated as expired, so a corrupt lock cannot wedge
// a node forever.
func decideLock(value, namespace, pod string, now time.Time, timeout time.Duration, ownerExists func(ns, name string) bool) lockDecision {
	if value == "" {
		return lockFree
	}
	l, err := gpus.ParseLock(value)
	if err != nil || now.Sub(l.Time) > timeout {
		return lockSteal
	}
	if l.Pod != "" && l.Namespace == namespace && l.Pod == pod {
		return lockHeld
	}
	if l.Pod != "" && !ownerExists(l.Namespace, l.Pod) {
		return lockSteal
	}
	return lockContended
}

func (d *double) nodeMutex(node string) *sync.Mutex {
	m, _ := d.nodeLocks.LoadOrStore(node, &sync.Mutex{})
	return m.(*sync.Mutex)
}

// lockNode takes hami.io/mutex.lock on the node for the pod with HAMi's API
// calls (nodelock.LockNode, pkg/util/nodelock/nodelock.go@v2.10.0): GET the
// node; if locked, GET the owner pod when needed, release a stale lock;
// then SetNodeLock.
func (d *double) lockNode(ctx context.Context, node, namespace, pod string) error {
	n, err := d.client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("lock node %s: %w", node, err)
	}
	value, locked := n.Annotations[gpus.AnnoNodeLock]
	if !locked {
		return d.setNodeLock(ctx, node, namespace, pod)
	}
	var lookupErr error
	exists := func(ns, name string) bool {
		_, err := d.client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			lookupErr = err
		}
		return !apierrors.IsNotFound(err)
	}
	decision := decideLock(value, namespace, pod, d.now(), d.cfg.NodeLockTimeout, exists)
	if lookupErr != nil {
		return fmt.Errorf("lock node %s: get lock owner: %w", node, lookupErr)
	}
	switch decision {
	case lockHeld:
		return nil
	case lockContended:
		return fmt.Errorf("node %s has been locked within %v: %w", node, d.cfg.NodeLockTimeout, errContention)
	}
	d.log.Debug(Banner+": releasing expired or dangling node lock", "node", node, "lock", value)
	if err := d.releaseNodeLock(ctx, node, namespace, pod, true); err != nil {
		return fmt.Errorf("release stale lock on node %s: %w", node, err)
	}
	return d.setNodeLock(ctx, node, namespace, pod)
}

// setNodeLock is SetNodeLock: under the in-process per-node mutex, GET the
// node (a lock that appeared meanwhile is contention, "is locked"), then in
// a retry loop GET it again and PATCH the lock with its resourceVersion.
func (d *double) setNodeLock(ctx context.Context, node, namespace, pod string) error {
	m := d.nodeMutex(node)
	m.Lock()
	defer m.Unlock()
	nodes := d.client.CoreV1().Nodes()
	n, err := nodes.Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("lock node %s: %w", node, err)
	}
	if _, ok := n.Annotations[gpus.AnnoNodeLock]; ok {
		return fmt.Errorf("node %s is locked: %w", node, errContention)
	}
	owner := "," + namespace + "," + pod
	for attempt := 0; ; attempt++ {
		n, err := nodes.Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("lock node %s: %w", node, err)
		}
		if v, ok := n.Annotations[gpus.AnnoNodeLock]; ok {
			if strings.HasSuffix(v, owner) {
				return nil
			}
			return fmt.Errorf("node %s is locked: %w", node, errContention)
		}
		value := gpus.LockValue(d.now(), namespace, pod)
		err = d.patchLock(ctx, node, n.ResourceVersion, &value)
		if err == nil {
			d.log.Debug(Banner+": node lock set", "node", node, "lock", value)
			return nil
		}
		if attempt >= 4 { // HAMi's DefaultStrategy: 5 steps
			return fmt.Errorf("lock node %s: %w", node, err)
		}
	}
}

// releaseNodeLock is ReleaseNodeLock: GET the node; unless skipOwnerCheck,
// leave a lock that names another pod alone; otherwise GET it again and
// PATCH the lock away with its resourceVersion.
func (d *double) releaseNodeLock(ctx context.Context, node, namespace, pod string, skipOwnerCheck bool) error {
	m := d.nodeMutex(node)
	m.Lock()
	defer m.Unlock()
	nodes := d.client.CoreV1().Nodes()
	n, err := nodes.Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("release lock on node %s: %w", node, err)
	}
	seen, ok := n.Annotations[gpus.AnnoNodeLock]
	owner := "," + namespace + "," + pod
	if !ok || (!skipOwnerCheck && strings.Contains(seen, ",") && !strings.HasSuffix(seen, owner)) {
		return nil
	}
	for attempt := 0; ; attempt++ {
		n, err := nodes.Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("release lock on node %s: %w", node, err)
		}
		current, ok := n.Annotations[gpus.AnnoNodeLock]
		if !ok || (skipOwnerCheck || !strings.Contains(current, ",")) && current != seen ||
			!skipOwnerCheck && strings.Contains(current, ",") && !strings.HasSuffix(current, owner) {
			return nil
		}
		err = d.patchLock(ctx, node, n.ResourceVersion, nil)
		if err == nil {
			d.log.Debug(Banner+": node lock released", "node", node, "pod", namespace+"/"+pod)
			return nil
		}
		if attempt >= 4 {
			return fmt.Errorf("release lock on node %s: %w", node, err)
		}
	}
}

// patchLock sets (value != nil) or removes the lock with a merge patch that
// carries the node's resourceVersion (optimistic concurrency).
func (d *double) patchLock(ctx context.Context, node, rv string, value *string) error {
	var v any
	if value != nil {
		v = *value
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"annotations":     map[string]any{gpus.AnnoNodeLock: v},
		"resourceVersion": rv,
	}})
	_, err := d.client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}
