package suite

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// lockedNode is a worker whose HAMi lock names lockedBy, released (the
// annotation removed) from the releaseAt-th read on; 0 never releases.
func lockedNode(t *testing.T, lockedBy string, releaseAt int64) (*runner, *atomic.Int64) {
	t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w", Annotations: map[string]string{
		gpus.AnnoNodeLock: gpus.LockValue(time.Now(), "ns", lockedBy)}}}
	r, fakes := fakeRunner(map[string][]runtime.Object{"tenant-a": {node}})
	var reads atomic.Int64
	fakes["tenant-a"].PrependReactor("get", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		n := node.DeepCopy()
		if at := reads.Add(1); releaseAt > 0 && at >= releaseAt {
			delete(n.Annotations, gpus.AnnoNodeLock)
		}
		return true, n, nil
	})
	return r, &reads
}

func TestWaitLockReleased(t *testing.T) {
	ref := podRef{"tenant-a", "ns", "p"}
	for _, tt := range []struct {
		name      string
		lockedBy  string
		releaseAt int64
		reads     int64
		step      string
	}{
		{"released on the third read", "p", 3, 3, ""},
		{"another pod's lock is not this pod's to wait for", "other", 0, 1, ""},
		{"never released: goes on, saying so", "p", 0, -1, "still names ns/p 50ms after the bind; going on"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, reads := lockedNode(t, tt.lockedBy, tt.releaseAt)
			r.lockWait = 50 * time.Millisecond
			ct := newT(r)
			ct.waitLockReleased(context.Background(), ref, "w")
			if tt.reads > 0 && reads.Load() != tt.reads {
				t.Errorf("%d reads of the node, want %d", reads.Load(), tt.reads)
			}
			if tt.reads < 0 && reads.Load() < 3 {
				t.Errorf("%d reads of the node in 50ms, want it asked again", reads.Load())
			}
			var steps []string
			for _, s := range ct.res.Steps {
				steps = append(steps, s.Message)
			}
			if got := strings.Join(steps, "\n"); (tt.step == "") != (got == "") || !strings.Contains(got, tt.step) {
				t.Errorf("steps %q, want one with %q", got, tt.step)
			}
		})
	}
}
