package gpus

import "github.com/gpu-lab/gpu-lab/ci/lab"

// Resource is one extended resource a GPU worker advertises on its Node
// (status.capacity and status.allocatable), with its whole-node value.
type Resource struct {
	Name  string
	Value int64
}

// Advertised lists the four extended resources a worker's Node carries, in
// this order: nvidia.com/gpu, nvidia.com/gpumem, nvidia.com/gpucores and
// nvidia.com/gpumem-percentage.
//
// nvidia.com/gpu is HAMi's registration gate (split count × cards, see
// GPUCapacity). The other three are exactly what HAMi's mock device plugin
// v1.0.1 would advertise for the same register annotation: it sums over the
// annotation's cards devmem, devcore and 100 per card
// (mock-device-plugin v1.0.1 internal/pkg/api/device/nvidia/device.go:182-186)
// and divides the memory only when memoryFactor > 1 (same file :187-191);
// the lab's device file fixes memoryFactor 1 (ci/render/hamidevice.go), so
// nvidia.com/gpumem counts MB, as every request in the seed does. The plugin
// then sent one kubelet Device per unit (internal/pkg/mock/server.go:78-97),
// which the kubelet's 4 MiB gRPC receive limit caps at about 120,000
// (Kubernetes v1.36.4 pkg/kubelet/cm/devicemanager/plugin/v1beta1/client.go:135-142
// dials without grpc.MaxCallRecvMsgSize, so gRPC's default of 4 MiB holds);
// the lab writes the totals on the Node's status
// instead (ci/gpus/deviceplugin.RegisterNode), which has no such bound.
func Advertised(l *lab.Lab, tenant string, w lab.Worker) []Resource {
	var mem, cores, percent int64
	for _, d := range Devices(l, tenant, w) {
		mem += int64(d.Devmem)
		cores += int64(d.Devcore)
		percent += 100
	}
	return []Resource{
		{ResourceGPU, int64(GPUCapacity(l, w))},
		{ResourceGPUMem, mem},
		{ResourceGPUCores, cores},
		{ResourceGPUMemPercent, percent},
	}
}
