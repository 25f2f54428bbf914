package suite

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
	"github.com/gpu-lab/gpu-lab/ci/results"
)

// finishDelay is how long the fake's device plugin takes, once the case
// watches, to finish a bind: the metric must measure at least that.
const finishDelay = 30 * time.Millisecond

// The bounds runTC19 gives TC-19 after the bind.
const (
	passWait = 20 * time.Second
	failWait = 2 * time.Second
)

// bindCluster makes tenant-a of a fake runner a cluster where TC-19's pod
// is bound as HAMi's Bind leaves it (scheduler.go:1031-1057@v2.10.0): it
// comes back from create bound to the worker's node, in bind phase
// allocating, with the node locked in its name. Once the case's watch is
// open (the fake replays nothing to a watch, see later), finish plays the
// device plugin on the bound pod, finishDelay later.
func bindCluster(t *testing.T, r *runner, f *fake.Clientset, pl placement,
	finish func(context.Context, kubernetes.Interface, *corev1.Pod) error) {
	t.Helper()
	devs := gpus.Devices(r.cfg.Lab, pl.Tenant, pl.Worker)
	node := registeredNode("gpu-lab-"+pl.Tenant+"-"+pl.Worker.Name, devs)
	if _, err := f.CoreV1().Nodes().Create(context.Background(), &node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	created := make(chan *corev1.Pod, 1)
	f.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		p.Spec.NodeName = node.Name
		p.Annotations[gpus.AnnoBindPhase] = gpus.BindPhaseAllocating
		grant := gpus.PodDevices{{{UUID: devs[0].ID, Type: gpus.DeviceVendor, MemoryMB: 1000, Cores: 10}}}.Encode()
		p.Annotations[gpus.AnnoDevicesAllocated], p.Annotations[gpus.AnnoDevicesToAlloc] = grant, grant
		n := node.DeepCopy()
		n.Annotations[gpus.AnnoNodeLock] = gpus.LockValue(time.Now(), p.Namespace, p.Name)
		if err := f.Tracker().Update(corev1.SchemeGroupVersion.WithResource("nodes"), n, ""); err != nil {
			return true, nil, err
		}
		select {
		case created <- p.DeepCopy():
		default:
		}
		return false, nil, nil
	})
	var once sync.Once
	f.PrependWatchReactor("pods", func(a k8stesting.Action) (bool, watch.Interface, error) {
		w, err := f.Tracker().Watch(a.GetResource(), a.GetNamespace(), a.(k8stesting.WatchActionImpl).ListOptions)
		if err != nil {
			return true, nil, err
		}
		select {
		case p := <-created:
			once.Do(func() {
				go func() {
					time.Sleep(finishDelay)
					if finish != nil {
						if err := finish(context.Background(), f, p); err != nil {
							t.Errorf("the fake device plugin: %v", err)
						}
					}
				}()
			})
		default:
		}
		return true, w, nil
	})
}

// patchPhase sets the pod's bind phase and nothing else.
func patchPhase(ctx context.Context, c kubernetes.Interface, p *corev1.Pod, phase string) error {
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{gpus.AnnoBindPhase: phase}}})
	_, err := c.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// runTC19 runs TC-19 on a fake cluster whose device plugin is finish, with
// wait as the bound after the bind. The bound is the only time the tests
// depend on: a passing case ends as soon as it sees the bind finished, so
// its bound is long (passWait); a case that must fail waits it out, so its
// bound (failWait) is short, yet many times finishDelay, so that a loaded
// machine still runs the fake plugin well within it.
func runTC19(t *testing.T, finish func(context.Context, kubernetes.Interface, *corev1.Pod) error,
	wait time.Duration) (results.Case, *fake.Clientset) {
	t.Helper()
	r, fakes := fakeRunner(nil)
	r.tm.Case, r.tm.Cleanup, r.tm.Bind = 30*time.Second, time.Second, 2*time.Second
	r.bindWait = wait
	pl := *pickHardware(r.cfg.Lab).Bind
	f := fakes[pl.Tenant]
	bindCluster(t, r, f, pl, finish)
	c := &caseRun{Case: caseByID("TC-19"), tenants: []string{pl.Tenant},
		run: func(ctx context.Context, t *caseT) error { return tc19(ctx, t, pl) }}
	res := results.Case{ID: c.ID, Tenants: c.tenants, Started: time.Now()}
	r.runCase(context.Background(), c, &lane{}, &res)
	return res, f
}

// With gpu-lab's bind finalizer's own FinishBind as the device plugin (what
// the local test environment runs), TC-19 passes, reports the time from the
// bind to each step as metrics, and deletes its pod.
func TestTC19PassesWhenTheBindFinishes(t *testing.T) {
	res, f := runTC19(t, deviceplugin.FinishBind, passWait)
	if res.Status != results.Passed {
		t.Fatalf("TC-19 %s: %s\n%s", res.Status, res.Message, res.Details)
	}
	toSuccess, toRelease := res.Metrics["bind_to_success_seconds"], res.Metrics["bind_to_lock_release_seconds"]
	if toSuccess < finishDelay.Seconds() || toRelease < toSuccess || toRelease >= passWait.Seconds() {
		t.Errorf("metrics %v: want success ≥ %s after the bind (the plugin's delay), the release after it and within the %s wait", res.Metrics,
			finishDelay, passWait)
	}
	var steps []string
	for _, s := range res.Steps {
		steps = append(steps, s.Message)
	}
	all := strings.Join(steps, "\n")
	for _, want := range []string{"hami.io/bind-phase=success", "no longer names tc-19-test1/tc19-bind", "pod tc-19-test1/tc19-bind deleted"} {
		if !strings.Contains(all, want) {
			t.Errorf("steps lack %q:\n%s", want, all)
		}
	}
	if _, err := f.CoreV1().Pods("tc-19-test1").Get(context.Background(), "tc19-bind", metav1.GetOptions{}); err == nil {
		t.Error("TC-19 left its pod")
	}
}

// TC-19 fails, saying what it saw, when what finishes the bind is broken:
// the phase stays allocating or the lock stays held past the wait, or the
// phase is failed, which fails at once.
func TestTC19FailsWhenTheBindIsNotFinished(t *testing.T) {
	for _, tc := range []struct {
		name   string
		finish func(context.Context, kubernetes.Interface, *corev1.Pod) error
		want   string
		atOnce bool
	}{
		{"bind phase stays allocating", nil,
			`pod tc-19-test1/tc19-bind bound to gpu-lab-tenant-a-worker: hami.io/bind-phase is "allocating" 2s after the bind, want "success"`,
			false},
		// As HAMi's PodAllocationFailed: the phase failed, the lock released.
		{"bind phase failed", func(ctx context.Context, c kubernetes.Interface, p *corev1.Pod) error {
			if err := patchPhase(ctx, c, p, gpus.BindPhaseFailed); err != nil {
				return err
			}
			return deviceplugin.ReleaseNodeLock(ctx, c, p.Spec.NodeName, p.Namespace, p.Name)
		}, "pod tc-19-test1/tc19-bind bound to gpu-lab-tenant-a-worker has hami.io/bind-phase=failed", true},
		{"lock never released", func(ctx context.Context, c kubernetes.Interface, p *corev1.Pod) error {
			return patchPhase(ctx, c, p, gpus.BindPhaseSuccess)
		}, "node gpu-lab-tenant-a-worker: hami.io/mutex.lock still names pod tc-19-test1/tc19-bind 2s after the bind", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each waits out its bound
			res, _ := runTC19(t, tc.finish, failWait)
			if res.Status != results.Failed || !strings.Contains(res.Message, tc.want) {
				t.Fatalf("TC-19 %s: %q, want failed with %q", res.Status, res.Message, tc.want)
			}
			if took := time.Duration(res.Duration); tc.atOnce == (took >= failWait) {
				t.Errorf("failed after %s; at once: %v (the wait is %s)", took, tc.atOnce, failWait)
			}
			if len(res.Diagnostics) == 0 {
				t.Error("failed without diagnostics")
			}
		})
	}
}

// The bound is the catalog's: --list and the reports say what the case
// waits for.
func TestTC19AssertsItsBound(t *testing.T) {
	if c := caseByID("TC-19"); !strings.Contains(c.Asserts, "within "+bindFinishWait.String()+" of the bind") {
		t.Errorf("TC-19 asserts %q, want it to name the bound %s", c.Asserts, bindFinishWait)
	}
}
