package hamidouble

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// HAMi's node choice (NodeScoreList.Less, node_policy.go@v2.10.0): only the
// exact value "spread" sorts for the emptiest node; anything else, empty
// included, is binpack.
func TestPickNodeByPolicy(t *testing.T) {
	t.Parallel()
	fits := []nodeFit{{Node: "empty", Score: 0}, {Node: "busy", Score: 6.44}, {Node: "full", Score: 12.88, Reason: "1/1 CardInsufficientCore"}}
	tests := []struct{ policy, want string }{
		{"binpack", "busy"},
		{"spread", "empty"},
		{"", "busy"},
		{"Spread", "busy"}, // HAMi compares with util.NodeSchedulerPolicySpread exactly
		{"topology-aware", "busy"},
	}
	for _, tt := range tests {
		if got, ok := pickNode(fits, tt.policy); !ok || got.Node != tt.want {
			t.Errorf("policy %q picked %q, want %q", tt.policy, got.Node, tt.want)
		}
	}
}

// The pod's annotation wins whenever it is present, even empty
// (resolveNodeSchedulerPolicy, score.go@v2.10.0; GetGPUSchedulerPolicyByPod,
// util.go@v2.10.0); the faults bend the result on purpose.
func TestNodePolicyOfAPod(t *testing.T) {
	t.Parallel()
	pod := func(annotations map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: annotations},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
				Resources: corev1.ResourceRequirements{Limits: limits("nvidia.com/gpu", "1")}}}}}
	}
	spread := map[string]string{gpus.AnnoNodePolicy: "spread"}
	tests := []struct {
		name        string
		annotations map[string]string
		faults      Faults
		want        string
	}{
		{"no annotation: --node-scheduler-policy", nil, Faults{}, "binpack"},
		{"annotation spread", spread, Faults{}, "spread"},
		{"empty annotation is present: not the default", map[string]string{gpus.AnnoNodePolicy: ""}, Faults{}, ""},
		{"IgnoreNodePolicyAnnotation", spread, Faults{IgnoreNodePolicyAnnotation: true}, "binpack"},
		{"InvertNodePolicy turns binpack into spread", nil, Faults{InvertNodePolicy: true}, "spread"},
		{"InvertNodePolicy turns spread into binpack", spread, Faults{InvertNodePolicy: true}, "binpack"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := readPodRequestWith(pod(tt.annotations), requestDefaults{GPUPolicy: "spread", NodePolicy: "binpack", MemoryFactor: 1})
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.faults.nodePolicy(req); got != tt.want {
				t.Errorf("node policy %q, want %q", got, tt.want)
			}
		})
	}
	req, _ := readPodRequestWith(pod(map[string]string{gpus.AnnoGPUPolicy: ""}), requestDefaults{GPUPolicy: "spread", NodePolicy: "binpack"})
	if req.GPUPolicy != "" {
		t.Errorf("an empty gpu-scheduler-policy annotation gave %q, want it kept (HAMi tests the key with ok)", req.GPUPolicy)
	}
}

// Through /filter, as kube-scheduler calls it: two default pods fill one
// node, a spread pod takes the other; each fault breaks one half.
func TestNodePolicyThroughFilter(t *testing.T) {
	t.Parallel()
	small := limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "1000", "nvidia.com/gpucores", "10")
	tests := []struct {
		name               string
		faults             Faults
		second, spreadNode string
	}{
		{"faithful", Faults{}, nodeA, nodeB},
		{"InvertNodePolicy", Faults{InvertNodePolicy: true}, nodeB, nodeA},
		{"IgnoreNodePolicyAnnotation", Faults{IgnoreNodePolicyAnnotation: true}, nodeA, nodeA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, Config{})
			e.d.setFaults(tt.faults)
			// The first pod may only go to worker-a, so the start is fixed.
			e.filter(e.gpuPod("first", nodeA, small, nil), nodeA)
			fr := e.filter(e.gpuPod("second", nodeA, small, nil), nodeA, nodeB)
			if fr.NodeNames == nil || len(*fr.NodeNames) != 1 || (*fr.NodeNames)[0] != tt.second {
				t.Fatalf("second default pod: %v, want %s", fr.NodeNames, tt.second)
			}
			// worker-a is the busier node in every row: two pods there, or
			// (inverted) one pod on each, which weighs more on worker-a's
			// one A100 (score 2.12) than on worker-b's two L4s (1.20).
			fr = e.filter(e.gpuPod("spread", nodeA, small, map[string]string{gpus.AnnoNodePolicy: "spread"}), nodeA, nodeB)
			if fr.NodeNames == nil || len(*fr.NodeNames) != 1 || (*fr.NodeNames)[0] != tt.spreadNode {
				t.Errorf("spread pod: %v, want %s", fr.NodeNames, tt.spreadNode)
			}
		})
	}
}

// nvidia.com/use-gpuuuid pins a pod to the listed cards and nouse-gpuuuid
// keeps it off them (device.CheckUUID, pkg/device/devices.go@v2.10.0: exact
// match per comma-separated, trimmed value), checked after the type and
// before the split count (NvidiaGPUDevices.Fit, pkg/device/nvidia/device.go
// @v2.10.0). A pinned pod refused by its card names both reasons, sorted as
// common.GenReason sorts them.
func TestUseGPUUUID(t *testing.T) {
	t.Parallel()
	h100s := nodeCards{Name: "dgx"}
	for i := range 8 {
		h100s.Cards = append(h100s.Cards, card{UUID: "GPU-h100-" + string(rune('0'+i)), Index: i,
			Type: "NVIDIA-H100-80GB-HBM3", Health: true, Count: 10, TotalMem: 81920, TotalCores: 100})
	}
	pin := func(r podRequest, use, noUse []string) podRequest { r.UseUUIDs, r.NoUseUUIDs = use, noUse; return r }
	cases := []struct {
		name  string
		steps []step
	}{
		{"pinned to card 3: every slice lands there", []step{
			{req: pin(slice(1, 20000, 30), []string{"GPU-h100-3"}, nil), wantDevs: "GPU-h100-3,NVIDIA,20000,30:;"},
			{req: pin(slice(1, 20000, 30), []string{"GPU-h100-3"}, nil), wantDevs: "GPU-h100-3,NVIDIA,20000,30:;"},
			{req: pin(slice(1, 20000, 30), []string{"GPU-h100-3"}, nil), wantDevs: "GPU-h100-3,NVIDIA,20000,30:;"},
			{req: pin(slice(1, 20000, 30), []string{"GPU-h100-3"}, nil), wantReason: "1/8 CardInsufficientCore, 7/8 CardUuidMismatch"},
		}},
		{"an oversized pod pinned to one card", []step{
			{req: pin(slice(1, 90000, 0), []string{"GPU-h100-0"}, nil), wantReason: "1/8 CardInsufficientMemory, 7/8 CardUuidMismatch"},
		}},
		{"two cards listed: spread across exactly those", []step{
			{req: pin(slice(1, 1000, 10), []string{"GPU-h100-1", "GPU-h100-2"}, nil), wantDevs: "GPU-h100-2,NVIDIA,1000,10:;"},
			{req: pin(slice(1, 1000, 10), []string{"GPU-h100-1", "GPU-h100-2"}, nil), wantDevs: "GPU-h100-1,NVIDIA,1000,10:;"},
			{req: pin(slice(1, 1000, 10), []string{"GPU-h100-9"}, nil), wantReason: "8/8 CardUuidMismatch"},
		}},
		{"nouse keeps the pod off a card", []step{
			{req: pin(slice(8, 1000, 10), nil, []string{"GPU-h100-7"}), wantReason: "1/8 CardUuidMismatch"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			node := h100s
			node.Cards = append([]card(nil), h100s.Cards...)
			for i, s := range tc.steps {
				fit := fitNode(node, s.req, Faults{})
				if got := fit.Devices.Encode(); got != s.wantDevs || fit.Reason != s.wantReason {
					t.Fatalf("pod %d: devices %q reason %q, want devices %q reason %q", i+1, got, fit.Reason, s.wantDevs, s.wantReason)
				}
				node = use(node, fit.Devices)
			}
		})
	}
}
