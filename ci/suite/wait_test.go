package suite

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

func newT(r *runner) *caseT {
	return &caseT{r: r, res: &results.Case{ID: "TC-06"}, lane: &lane{}, caseID: "TC-06"}
}

func pendingPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
}

// later updates the pod's status once the wait has opened its watch: the
// fake clientset does not replay to a watch what happened before it opened
// (an API server would, from the list's resourceVersion), so an update made
// after a fixed sleep was lost whenever the wait was slower to get there.
// The reactor opens the watch as the fake's own does, then lets the update go.
func later(f *fake.Clientset, p *corev1.Pod) {
	watching := make(chan struct{})
	var once sync.Once
	f.PrependWatchReactor("pods", func(action k8stesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := action.(k8stesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		w, err := f.Tracker().Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return true, nil, err
		}
		once.Do(func() { close(watching) })
		return true, w, nil
	})
	go func() {
		<-watching
		_, _ = f.CoreV1().Pods(p.Namespace).UpdateStatus(context.Background(), p, metav1.UpdateOptions{})
	}()
}

const verdictMsg = "0/2 nodes are available: 1 1/1 CardInsufficientMemory, 1 node(s) didn't match Pod's node affinity/selector."

func TestWaitVerdict(t *testing.T) {
	r, fakes := fakeRunner(map[string][]runtime.Object{"tenant-a": {pendingPod("p"), pendingPod("other")}})
	r.tm.Verdict = 5 * time.Second
	tt := newT(r)
	p := pendingPod("p")
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: corev1.PodReasonUnschedulable, Message: verdictMsg}}
	later(fakes["tenant-a"], p)
	msg, err := tt.waitVerdict(context.Background(), podRef{"tenant-a", "ns", "p"})
	if err != nil || msg != verdictMsg {
		t.Fatalf("waitVerdict = %q, %v", msg, err)
	}
}

func TestWaitVerdictFailsWhenBound(t *testing.T) {
	bound := pendingPod("p")
	bound.Spec.NodeName = "worker"
	r, _ := fakeRunner(map[string][]runtime.Object{"tenant-a": {bound}})
	_, err := newT(r).waitVerdict(context.Background(), podRef{"tenant-a", "ns", "p"})
	if err == nil || !strings.Contains(err.Error(), "pod ns/p was bound to worker, want it to stay Pending") {
		t.Fatalf("err = %v", err)
	}
}

func TestWaitBound(t *testing.T) {
	r, fakes := fakeRunner(map[string][]runtime.Object{"tenant-a": {pendingPod("p")}})
	p := pendingPod("p")
	p.Spec.NodeName = "worker"
	p.Status.Phase = corev1.PodRunning
	later(fakes["tenant-a"], p)
	got, err := newT(r).waitBound(context.Background(), podRef{"tenant-a", "ns", "p"}, true)
	if err != nil || got.Spec.NodeName != "worker" {
		t.Fatalf("waitBound = %v, %v", got, err)
	}
}

func TestWaitBoundTimeoutSaysWhy(t *testing.T) {
	t.Parallel() // waits out a timeout
	p := pendingPod("p")
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulerError",
		Message: "node worker has been locked within 5m0s: node lock contention"}}
	r, _ := fakeRunner(map[string][]runtime.Object{"tenant-a": {p}})
	r.tm.Bind = 300 * time.Millisecond
	_, err := newT(r).waitBound(context.Background(), podRef{"tenant-a", "ns", "p"}, false)
	want := "pod ns/p not bound within 300ms (no phase yet, scheduler's last verdict: PodScheduled=False (SchedulerError): node worker has " +
		"been locked within 5m0s: node lock contention — HAMi's node lock was held by another pod's bind)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func TestWaitBoundFailsFastOnVerdict(t *testing.T) {
	p := pendingPod("p")
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: corev1.PodReasonUnschedulable, Message: verdictMsg}}
	r, _ := fakeRunner(map[string][]runtime.Object{"tenant-a": {p}})
	_, err := newT(r).waitBound(context.Background(), podRef{"tenant-a", "ns", "p"}, false)
	if err == nil || !strings.Contains(err.Error(), "was declared unschedulable, want it bound: 0/2 nodes") {
		t.Fatalf("err = %v", err)
	}
}

func TestDeletePodWaitsGone(t *testing.T) {
	r, fakes := fakeRunner(map[string][]runtime.Object{"tenant-a": {pendingPod("p")}})
	tt := newT(r)
	if err := tt.deletePod(context.Background(), podRef{"tenant-a", "ns", "p"}); err != nil {
		t.Fatal(err)
	}
	if _, err := fakes["tenant-a"].CoreV1().Pods("ns").Get(context.Background(), "p", metav1.GetOptions{}); err == nil {
		t.Fatal("pod still there")
	}
	if err := tt.deletePod(context.Background(), podRef{"tenant-a", "ns", "p"}); err != nil {
		t.Fatalf("deleting a gone pod: %v", err)
	}
}
