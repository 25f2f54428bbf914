package suite

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// lockReleaseWait bounds how long a case waits, once its pod is bound, for
// HAMi's node lock to stop naming the pod. The lab's bind finalizer
// releases it within tens of milliseconds of the bind (a finisher in the
// device plugin's place held it 44 ms median, HAMI-FACTS.md §3b); the bound only keeps a platform
// whose device plugin is slower from holding the case.
const lockReleaseWait = 2 * time.Second

// waitLockReleased waits until the node's HAMi lock (hami.io/mutex.lock) no
// longer names the bound pod, up to the runner's lockWait, and never fails:
// it only spaces pods. A bind is over for HAMi when the device plugin
// releases the lock, and a case's next pod created before that finds the
// node locked, fails its Bind and waits out kube-scheduler's backoff (1–2 s
// at the lab's settings, on whole-second ticks): cases that create pods one
// after another (TC-09, TC-11, TC-12) would spend that, not test placement.
func (t *caseT) waitLockReleased(ctx context.Context, ref podRef, node string) {
	bound := t.r.lockWait
	if bound <= 0 {
		bound = lockReleaseWait
	}
	deadline := time.Now().Add(bound)
	// Asked often at first (a release takes tens of milliseconds), then
	// less, so a slow plugin costs a few requests, not hundreds.
	for every := 5 * time.Millisecond; ; every = min(2*every, 100*time.Millisecond) {
		n, err := t.client(ref.tenant).CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil || !gpus.OwnedBy(n.Annotations[gpus.AnnoNodeLock], ref.namespace, ref.name) {
			return
		}
		if time.Now().Add(every).After(deadline) {
			t.step("node %s's HAMi lock still names %s %s after the bind; going on", node, ref, bound)
			return
		}
		if sleepCtx(ctx, every) != nil {
			return
		}
	}
}
