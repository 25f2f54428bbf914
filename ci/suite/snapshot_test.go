package suite

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/results"
)

// A sample draws settled pods as they are, says what an unsettled one is
// still doing, and leaves out (naming them) pods on their way out.
func TestSampleShowsSettledStateAndLeavesDeletingPodsOut(t *testing.T) {
	l := lab.Default()
	devs := gpus.Devices(l, "tenant-a", l.Tenants[0].Workers[0])
	node := registeredNode("gpu-lab-tenant-a-worker", devs)
	alloc := devs[0].ID + ",NVIDIA,20000,30:;"
	now := metav1.Now()
	type pod struct {
		name, ns, nodeName string
		phase              corev1.PodPhase
		deleting           bool
	}
	tests := []struct {
		name         string
		pod          pod
		terminating  string // a namespace being deleted
		wantState    string // "-" for not drawn
		wantDeleting bool
	}{
		{"bound and Running: settled", pod{"run", "ns", node.Name, corev1.PodRunning, false}, "", "", false},
		{"bound, not Running yet", pod{"start", "ns", node.Name, corev1.PodPending, false}, "", results.SliceStarting, false},
		{"allocated, not bound yet", pod{"bind", "ns", "", corev1.PodPending, false}, "", results.SliceBinding, false},
		{"pod being deleted", pod{"del", "ns", node.Name, corev1.PodRunning, true}, "", "-", true},
		{"namespace being deleted", pod{"tc16-after-1", "gpu-lab-tc16", node.Name, corev1.PodRunning, false}, "gpu-lab-tc16", "-", true},
		{"another namespace being deleted", pod{"run", "ns", node.Name, corev1.PodRunning, false}, "gpu-lab-tc16", "", false},
		{"finished", pod{"done", "ns", node.Name, corev1.PodSucceeded, false}, "", "-", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: tt.pod.name, Namespace: tt.pod.ns,
					Annotations: map[string]string{gpus.AnnoVGPUNode: node.Name, gpus.AnnoDevicesAllocated: alloc}},
				Spec:   corev1.PodSpec{NodeName: tt.pod.nodeName},
				Status: corev1.PodStatus{Phase: tt.pod.phase},
			}
			if tt.pod.deleting {
				p.DeletionTimestamp = &now
			}
			nss := []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}}
			if tt.terminating != "" {
				nss = append(nss, corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tt.terminating},
					Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}})
			}
			st := buildState(results.TenantState{Name: "tenant-a"}, []corev1.Node{node}, []corev1.Pod{p}, terminating(nss))
			holders := st.Nodes[0].Cards[0].Holders
			switch {
			case tt.wantState == "-" && len(holders) != 0:
				t.Errorf("drawn %+v, want it left out", holders)
			case tt.wantState != "-" && (len(holders) != 1 || holders[0].State != tt.wantState):
				t.Errorf("holders %+v, want one in state %q", holders, tt.wantState)
			}
			if got := slices.Contains(st.Deleting, tt.pod.ns+"/"+tt.pod.name); got != tt.wantDeleting {
				t.Errorf("Deleting = %v, want it named there: %v", st.Deleting, tt.wantDeleting)
			}
		})
	}
}

func TestSamplesInLabOrder(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	s := func(tenant string, sec int) results.TenantState {
		return results.TenantState{Name: tenant, Moment: tenant + "@" + string(rune('0'+sec)), At: t0.Add(time.Duration(sec) * time.Second)}
	}
	tests := []struct {
		name    string
		samples []results.TenantState
		lab     []string
		want    []string
	}{
		{"tenant-b sampled first still follows tenant-a",
			[]results.TenantState{s("tenant-b", 1), s("tenant-a", 2), s("tenant-a", 3), s("tenant-b", 4)},
			[]string{"tenant-a", "tenant-b"}, []string{"tenant-a@2", "tenant-a@3", "tenant-b@1", "tenant-b@4"}},
		{"the lab's order, not the alphabet",
			[]results.TenantState{s("alpha", 1), s("zulu", 2)},
			[]string{"zulu", "alpha"}, []string{"zulu@2", "alpha@1"}},
		{"each tenant's samples in time order",
			[]results.TenantState{s("tenant-a", 5), s("tenant-a", 1)},
			[]string{"tenant-a"}, []string{"tenant-a@1", "tenant-a@5"}},
		{"a tenant the lab does not name comes last",
			[]results.TenantState{s("stray", 1), s("tenant-a", 2)},
			[]string{"tenant-a"}, []string{"tenant-a@2", "stray@1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, st := range inLabOrder(tt.samples, tt.lab) {
				got = append(got, st.Moment)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("order %v, want %v", got, tt.want)
			}
		})
	}
}
