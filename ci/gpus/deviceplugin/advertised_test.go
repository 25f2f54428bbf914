package deviceplugin

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// The readiness gate's decision: which of a worker's four GPU resources its
// Node's allocatable lacks or carries at another value.
func TestMismatches(t *testing.T) {
	want := []gpus.Resource{
		{Name: gpus.ResourceGPU, Value: 20},
		{Name: gpus.ResourceGPUMem, Value: 49152},
		{Name: gpus.ResourceGPUCores, Value: 200},
		{Name: gpus.ResourceGPUMemPercent, Value: 200},
	}
	full := func() corev1.ResourceList {
		return corev1.ResourceList{
			gpus.ResourceGPU:           resource.MustParse("20"),
			gpus.ResourceGPUMem:        resource.MustParse("49152"),
			gpus.ResourceGPUCores:      resource.MustParse("200"),
			gpus.ResourceGPUMemPercent: resource.MustParse("200"),
			corev1.ResourceCPU:         resource.MustParse("8"),
		}
	}
	with := func(edit func(corev1.ResourceList)) corev1.ResourceList { l := full(); edit(l); return l }
	for _, tc := range []struct {
		name string
		list corev1.ResourceList
		want []Mismatch
	}{
		{"all four at the lab's values", full(), nil},
		{"the same quantity written another way", with(func(l corev1.ResourceList) { l[gpus.ResourceGPUMem] = resource.MustParse("48Ki") }), nil},
		{"nothing registered (a bare Node)", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}, []Mismatch{
			{gpus.ResourceGPU, 20, "absent"}, {gpus.ResourceGPUMem, 49152, "absent"},
			{gpus.ResourceGPUCores, 200, "absent"}, {gpus.ResourceGPUMemPercent, 200, "absent"},
		}},
		{"zeroed by a re-registering kubelet", with(func(l corev1.ResourceList) {
			l[gpus.ResourceGPUMem] = resource.MustParse("0")
			l[gpus.ResourceGPUCores] = resource.MustParse("0")
		}), []Mismatch{{gpus.ResourceGPUMem, 49152, "0"}, {gpus.ResourceGPUCores, 200, "0"}}},
		{"only the count, as before the mock plugin was dropped", corev1.ResourceList{gpus.ResourceGPU: resource.MustParse("20")}, []Mismatch{
			{gpus.ResourceGPUMem, 49152, "absent"}, {gpus.ResourceGPUCores, 200, "absent"}, {gpus.ResourceGPUMemPercent, 200, "absent"},
		}},
		{"memory divided by a memoryFactor", with(func(l corev1.ResourceList) { l[gpus.ResourceGPUMem] = resource.MustParse("49") }),
			[]Mismatch{{gpus.ResourceGPUMem, 49152, "49"}}},
		{"more than the cards have", with(func(l corev1.ResourceList) { l[gpus.ResourceGPUMemPercent] = resource.MustParse("300") }),
			[]Mismatch{{gpus.ResourceGPUMemPercent, 200, "300"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Mismatches(tc.list, want); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Mismatches = %v, want %v", got, tc.want)
			}
		})
	}
}

// The gate's message names the tenant, worker, Node and, per resource, want
// and got.
func TestAllocatableGaps(t *testing.T) {
	want := []gpus.Resource{{Name: gpus.ResourceGPU, Value: 10}, {Name: gpus.ResourceGPUMem, Value: 81920}}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-lab-tenant-a-worker"},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{gpus.ResourceGPU: resource.MustParse("10")}}}
	err := AllocatableGaps("tenant-a", "worker", n, want)
	if err == nil {
		t.Fatal("a Node without nvidia.com/gpumem passed the gate")
	}
	for _, s := range []string{"tenant tenant-a", "worker worker", "Node gpu-lab-tenant-a-worker",
		"nvidia.com/gpumem want 81920, got absent"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("gate error %q does not say %q", err, s)
		}
	}
	if strings.Contains(err.Error(), "nvidia.com/gpu want") {
		t.Errorf("gate error %q names nvidia.com/gpu, which is right", err)
	}
	n.Status.Allocatable[gpus.ResourceGPUMem] = resource.MustParse("81920")
	if err := AllocatableGaps("tenant-a", "worker", n, want); err != nil {
		t.Errorf("a Node with every resource: %v", err)
	}
}
