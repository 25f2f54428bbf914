package gpus

import (
	"reflect"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// What a worker advertises is what HAMi's mock device plugin v1.0.1 computed
// from the same register annotation (internal/pkg/api/device/nvidia/device.go:
// 182-186: Σ devmem, Σ devcore, 100 per card; memoryFactor 1 leaves memory in
// MB, :187), plus the count nvidia.com/gpu = split count × cards. The
// server-shaped workers are those the mock plugin could not serve: one kubelet
// Device per MB beyond about 120,000 (gpus.Advertised says why).
func TestAdvertised(t *testing.T) {
	parse := func(y string) *lab.Lab {
		l, err := lab.Parse([]byte(y))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, tc := range []struct {
		name string
		l    *lab.Lab
		want []Resource
	}{
		{"seed tenant-a: one A100-80GB", lab.Default(), []Resource{
			{ResourceGPU, 10}, {ResourceGPUMem, 81920}, {ResourceGPUCores, 100}, {ResourceGPUMemPercent, 100}}},
		{"8 × H100-80GB", parse("name: x\ntenants: [{name: t, workers: [{name: w, gpus: [{model: H100-80GB, count: 8}]}]}]\n"), []Resource{
			{ResourceGPU, 80}, {ResourceGPUMem, 655360}, {ResourceGPUCores, 800}, {ResourceGPUMemPercent, 800}}},
		{"4 × A100-40GB, split 4",
			parse("name: x\nhami: {splitCount: 4}\ntenants: [{name: t, workers: [{name: w, gpus: [{model: A100-40GB, count: 4}]}]}]\n"), []Resource{
				{ResourceGPU, 16}, {ResourceGPUMem, 163840}, {ResourceGPUCores, 400}, {ResourceGPUMemPercent, 400}}},
		{"mixed groups, memory overridden",
			parse("name: x\ntenants: [{name: t, workers: [{name: w, gpus: [{model: L4, count: 1, memoryMB: 23034}, {model: T4, count: 2}]}]}]\n"),
			[]Resource{
				{ResourceGPU, 30}, {ResourceGPUMem, 23034 + 2*16384}, {ResourceGPUCores, 300}, {ResourceGPUMemPercent, 300}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tn := tc.l.Tenants[0]
			if got := Advertised(tc.l, tn.Name, tn.Workers[0]); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Advertised = %v, want %v", got, tc.want)
			}
		})
	}
}
