package suite

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/results"
)

// A case samples its card right after the bind (TC-16 did, 15 ms after,
// and drew its whole-card pod Pending): snapshot waits for a bound pod to
// run, and says so when it does not.
func TestSnapshotWaitsForBoundPodsToRun(t *testing.T) {
	l := lab.Default()
	devs := gpus.Devices(l, "tenant-a", l.Tenants[0].Workers[0])
	node := registeredNode("gpu-lab-tenant-a-worker", devs)
	bound := func() *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "tc16-whole-1", Namespace: "ns", Labels: map[string]string{labelCase: "TC-16"},
				Annotations: map[string]string{gpus.AnnoVGPUNode: node.Name, gpus.AnnoDevicesAllocated: devs[0].ID + ",NVIDIA,81920,100:;"}},
			Spec:   corev1.PodSpec{NodeName: node.Name},
			Status: corev1.PodStatus{Phase: corev1.PodPending},
		}
	}
	tests := []struct {
		name      string
		starts    bool
		wantState string
		wantStep  string
	}{
		{"the pod runs: drawn settled", true, "", "sampled the cards of tenant-a"},
		{"the pod does not run: drawn as bound, starting", false, results.SliceStarting, `the sample draws it as "bound, starting"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}
			r, fakes := fakeRunner(map[string][]runtime.Object{"tenant-a": {&node, ns, bound()}})
			r.tm.Bind = time.Minute
			if tt.starts {
				running := bound()
				running.Status.Phase = corev1.PodRunning
				later(fakes["tenant-a"], running)
			} else {
				r.tm.Bind = 50 * time.Millisecond // it never runs: the bound only ends the wait
			}
			tc := newT(r)
			tc.snapshot(context.Background(), "tenant-a", "TC-16: a whole-card pod holds "+devs[0].ID)
			if len(r.tenants) != 1 {
				t.Fatalf("%d samples recorded, want 1; steps %+v", len(r.tenants), tc.res.Steps)
			}
			hs := r.tenants[0].Nodes[0].Cards[0].Holders
			if len(hs) != 1 || hs[0].State != tt.wantState {
				t.Errorf("holders %+v, want tc16-whole-1 in state %q", hs, tt.wantState)
			}
			var steps []string
			for _, s := range tc.res.Steps {
				steps = append(steps, s.Message)
			}
			if !strings.Contains(strings.Join(steps, "\n"), tt.wantStep) {
				t.Errorf("steps %q lack %q", steps, tt.wantStep)
			}
		})
	}
}
