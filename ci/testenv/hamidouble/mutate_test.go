package hamidouble

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func limits(kv ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

func podWith(l corev1.ResourceList) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"},
		Spec: corev1.PodSpec{SchedulerName: corev1.DefaultSchedulerName, Containers: []corev1.Container{
			{Name: "c", Resources: corev1.ResourceRequirements{Limits: l}},
		}},
	}
}

// applied returns the pod's first container limits and scheduler name after
// the mutation's patch (the patch only ever sets whole resources and the
// scheduler name, so applying it by hand is exact).
func applied(t *testing.T, pod *corev1.Pod, m mutation) (corev1.ResourceList, string) {
	t.Helper()
	lim, sched := pod.Spec.Containers[0].Resources.Limits, pod.Spec.SchedulerName
	for _, op := range m.Patch {
		b, _ := json.Marshal(op.Value)
		switch op.Path {
		case "/spec/containers/0/resources":
			var r corev1.ResourceRequirements
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			lim = r.Limits
		case "/spec/schedulerName":
			_ = json.Unmarshal(b, &sched)
		default:
			t.Fatalf("unexpected patch path %s", op.Path)
		}
	}
	return lim, sched
}

func TestMutate(t *testing.T) {
	t.Parallel()
	opts := mutateOptions{SchedulerName: "hami-scheduler", DefaultGPUNum: 1, ForceOverwriteDefaultScheduler: true}
	privileged := true
	cases := []struct {
		name       string
		pod        *corev1.Pod
		wantDenied string
		wantLimits corev1.ResourceList // nil: unchanged
		wantSched  string
	}{
		{name: "slice pod gets gpu 1, keeps its cores, hami-scheduler",
			pod:        podWith(limits("nvidia.com/gpumem", "20000", "nvidia.com/gpucores", "30")),
			wantLimits: limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "20000", "nvidia.com/gpucores", "30"), wantSched: "hami-scheduler"},
		{name: "memory-only pod gets gpu 1 and no default cores",
			pod:        podWith(limits("nvidia.com/gpumem", "20000")),
			wantLimits: limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "20000"), wantSched: "hami-scheduler"},
		{name: "whole-card pod gets exclusive cores 100",
			pod:        podWith(limits("nvidia.com/gpu", "1")),
			wantLimits: limits("nvidia.com/gpu", "1", "nvidia.com/gpucores", "100"), wantSched: "hami-scheduler"},
		{name: "percentage 100 counts as whole card",
			pod: podWith(limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "1000", "nvidia.com/gpumem-percentage", "100")),
			wantLimits: limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "1000", "nvidia.com/gpumem-percentage", "100",
				"nvidia.com/gpucores", "100"),
			wantSched: "hami-scheduler"},
		{name: "percentage above 100 denied",
			pod: podWith(limits("nvidia.com/gpu", "1", "nvidia.com/gpumem-percentage", "150")), wantDenied: "nvidia.com/gpumem-percentage"},
		{name: "cpu-only pod untouched", pod: podWith(limits("cpu", "1")), wantSched: corev1.DefaultSchedulerName},
		{name: "other scheduler left alone", pod: func() *corev1.Pod {
			p := podWith(limits("nvidia.com/gpu", "1"))
			p.Spec.SchedulerName = "volcano"
			return p
		}(), wantSched: "volcano"},
		{name: "ignored by label", pod: func() *corev1.Pod {
			p := podWith(limits("nvidia.com/gpu", "1"))
			p.Labels = map[string]string{"hami.io/webhook": "ignore"}
			return p
		}(), wantSched: corev1.DefaultSchedulerName},
		{name: "privileged gpu pod denied", pod: func() *corev1.Pod {
			p := podWith(limits("nvidia.com/gpu", "1"))
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: &privileged}
			return p
		}(), wantDenied: "container c is privileged"},
		{name: "privileged sidecar of a gpu pod denied", pod: func() *corev1.Pod {
			p := podWith(limits("nvidia.com/gpu", "1"))
			p.Spec.Containers = append(p.Spec.Containers,
				corev1.Container{Name: "side", SecurityContext: &corev1.SecurityContext{Privileged: &privileged}})
			return p
		}(), wantDenied: "container side is privileged"},
		{name: "privileged cpu-only pod allowed", pod: func() *corev1.Pod {
			p := podWith(limits("cpu", "1"))
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: &privileged}
			return p
		}(), wantSched: corev1.DefaultSchedulerName},
		{name: "gpu pod with nodeName denied", pod: func() *corev1.Pod {
			p := podWith(limits("nvidia.com/gpu", "1"))
			p.Spec.NodeName = "worker"
			return p
		}(), wantDenied: "pod has node assigned"},
		{name: "no containers denied", pod: &corev1.Pod{}, wantDenied: "pod has no containers"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := mutate(tc.pod, opts)
			if tc.wantDenied != "" {
				if m.Denied == "" || !strings.Contains(m.Denied, tc.wantDenied) {
					t.Fatalf("denied %q, want a denial containing %q", m.Denied, tc.wantDenied)
				}
				return
			}
			if m.Denied != "" {
				t.Fatalf("denied %q, want allowed", m.Denied)
			}
			lim, sched := applied(t, tc.pod, m)
			if sched != tc.wantSched {
				t.Errorf("schedulerName %q, want %q", sched, tc.wantSched)
			}
			want := tc.wantLimits
			if want == nil {
				want = tc.pod.Spec.Containers[0].Resources.Limits
			}
			if len(lim) != len(want) {
				t.Fatalf("limits %v, want %v", lim, want)
			}
			for k, q := range want {
				if g := lim[k]; g.Cmp(q) != 0 {
					t.Errorf("limit %s = %s, want %s", k, g.String(), q.String())
				}
			}
		})
	}
}

func TestReadPodRequest(t *testing.T) {
	t.Parallel()
	p := podWith(limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "20000", "nvidia.com/gpucores", "30"))
	p.Spec.InitContainers = []corev1.Container{{Name: "init"}}
	p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "pct", Resources: corev1.ResourceRequirements{
		Requests: limits("nvidia.com/gpu", "1", "nvidia.com/gpumem-percentage", "50")}})
	p.Annotations = map[string]string{"hami.io/gpu-scheduler-policy": "binpack", "nvidia.com/use-gputype": "A100, H100"}
	r, err := readPodRequest(p, "spread", "binpack")
	if err != nil {
		t.Fatal(err)
	}
	want := []containerRequest{{}, {Nums: 1, MemMB: 20000, MemPercent: percentUnset, Cores: 30}, {Nums: 1, MemPercent: 50}}
	if len(r.Containers) != 3 || r.Containers[0] != want[0] || r.Containers[1] != want[1] || r.Containers[2] != want[2] {
		t.Errorf("containers %+v, want %+v", r.Containers, want)
	}
	if r.GPUPolicy != "binpack" || r.NodePolicy != "binpack" || len(r.UseTypes) != 2 || r.UseTypes[1] != "H100" {
		t.Errorf("policies/types = %s %s %v", r.GPUPolicy, r.NodePolicy, r.UseTypes)
	}
	bad := podWith(limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "1.5"))
	if _, err := readPodRequest(bad, "spread", "binpack"); err == nil {
		t.Error("non-integer gpumem accepted, want an error")
	}
}
