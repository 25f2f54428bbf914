package hamidouble

import (
	"fmt"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

// The seed lab's cards: tenant-a one A100 80GB, tenant-b two L4 24GB.
func a100Node() nodeCards {
	return nodeCards{Name: "worker-a", Cards: []card{
		{UUID: "GPU-a100-0", Index: 0, Type: "NVIDIA-A100-SXM4-80GB", Health: true, Count: 10, TotalMem: 81920, TotalCores: 100},
	}}
}

func l4Node() nodeCards {
	return nodeCards{Name: "worker-b", Cards: []card{
		{UUID: "GPU-l4-0", Index: 0, Type: "NVIDIA-L4", Health: true, Count: 10, TotalMem: 24576, TotalCores: 100},
		{UUID: "GPU-l4-1", Index: 1, Type: "NVIDIA-L4", Health: true, Count: 10, TotalMem: 24576, TotalCores: 100},
	}}
}

// use adds a grant to the node's usage, as the next Filter would count it.
func use(n nodeCards, devs gpus.PodDevices) nodeCards {
	for _, g := range devs.All() {
		for i := range n.Cards {
			if n.Cards[i].UUID == g.UUID {
				n.Cards[i].Used++
				n.Cards[i].UsedMem += g.MemoryMB
				n.Cards[i].UsedCores += g.Cores
			}
		}
	}
	return n
}

// slice is one container asking for nums cards with mem MB (0 = unset) and
// cores %, read the way Filter reads it.
func slice(nums, mem, cores int) podRequest {
	cr := containerRequest{Nums: nums, MemMB: mem, MemPercent: percentUnset, Cores: cores}
	if mem == 0 {
		cr.MemPercent = 100
	}
	return podRequest{Containers: []containerRequest{cr}, GPUPolicy: "spread", NodePolicy: "binpack"}
}

func withPolicy(r podRequest, p string) podRequest { r.GPUPolicy = p; return r }

func withTypes(r podRequest, use ...string) podRequest { r.UseTypes = use; return r }

// step is one pod in a sequence; fits pods are counted for the next step.
type step struct {
	req        podRequest
	wantDevs   string // encoded grant when it fits
	wantReason string // FailedNodes value when it does not
}

func TestFitSequences(t *testing.T) {
	t.Parallel()
	shared := slice(1, 20000, 30)
	cases := []struct {
		name   string
		node   nodeCards
		faults Faults
		steps  []step
	}{
		{name: "three 20000MB+30% pods share the A100, a fourth 30% pod does not fit", node: a100Node(), steps: []step{
			{req: shared, wantDevs: "GPU-a100-0,NVIDIA,20000,30:;"},
			{req: shared, wantDevs: "GPU-a100-0,NVIDIA,20000,30:;"},
			{req: shared, wantDevs: "GPU-a100-0,NVIDIA,20000,30:;"},
			{req: shared, wantReason: "1/1 CardInsufficientCore"},
		}},
		{name: "IgnoreCores lets the fourth pod in", node: a100Node(), faults: Faults{IgnoreCores: true}, steps: []step{
			{req: shared, wantDevs: "GPU-a100-0,NVIDIA,20000,30:;"},
			{req: shared, wantDevs: "GPU-a100-0,NVIDIA,20000,30:;"},
			{req: shared, wantDevs: "GPU-a100-0,NVIDIA,20000,30:;"},
			{req: shared, wantDevs: "GPU-a100-0,NVIDIA,20000,30:;"},
		}},
		{name: "NoSharing refuses the second pod on a card", node: a100Node(), faults: Faults{NoSharing: true}, steps: []step{
			{req: shared, wantDevs: "GPU-a100-0,NVIDIA,20000,30:;"},
			{req: shared, wantReason: "1/1 ExclusiveDeviceAllocateConflict"},
		}},
		{name: "90000MB does not fit 81920MB", node: a100Node(), steps: []step{
			{req: slice(1, 90000, 0), wantReason: "1/1 CardInsufficientMemory"},
		}},
		{name: "IgnoreMemory lets 90000MB in", node: a100Node(), faults: Faults{IgnoreMemory: true}, steps: []step{
			{req: slice(1, 90000, 0), wantDevs: "GPU-a100-0,NVIDIA,90000,0:;"},
		}},
		{name: "exclusive whole card blocks sharing, memory checked before cores", node: a100Node(), steps: []step{
			{req: slice(1, 0, 100), wantDevs: "GPU-a100-0,NVIDIA,81920,100:;"},
			{req: slice(1, 20000, 0), wantReason: "1/1 CardInsufficientMemory"},
			{req: slice(1, 20000, 30), wantReason: "1/1 CardInsufficientMemory"},
		}},
		{name: "gpu:1 without the webhook takes whole memory and no cores", node: a100Node(), steps: []step{
			{req: slice(1, 0, 0), wantDevs: "GPU-a100-0,NVIDIA,81920,0:;"},
			{req: slice(1, 1000, 10), wantReason: "1/1 CardInsufficientMemory"},
		}},
		{name: "three cards on a two-card node", node: l4Node(), steps: []step{
			{req: slice(3, 0, 100), wantReason: "NodeInsufficientDevice"},
		}},
		{name: "IgnoreCount grants the two cards there are", node: l4Node(), faults: Faults{IgnoreCount: true}, steps: []step{
			{req: slice(3, 0, 100), wantDevs: "GPU-l4-1,NVIDIA,24576,100:GPU-l4-0,NVIDIA,24576,100:;"},
		}},
		{name: "use-gputype A100 on L4 cards", node: l4Node(), steps: []step{
			{req: withTypes(slice(1, 1000, 10), "A100"), wantReason: "2/2 CardTypeMismatch"},
			{req: withTypes(slice(1, 1000, 10), "l4"), wantDevs: "GPU-l4-1,NVIDIA,1000,10:;"},
		}},
		{name: "IgnoreTypeFilter places an A100-only pod on an L4", node: l4Node(), faults: Faults{IgnoreTypeFilter: true}, steps: []step{
			{req: withTypes(slice(1, 1000, 10), "A100"), wantDevs: "GPU-l4-1,NVIDIA,1000,10:;"},
		}},
		{name: "spread: empty tie goes to the last card, then the other card", node: l4Node(), steps: []step{
			{req: slice(1, 1000, 10), wantDevs: "GPU-l4-1,NVIDIA,1000,10:;"},
			{req: slice(1, 1000, 10), wantDevs: "GPU-l4-0,NVIDIA,1000,10:;"},
		}},
		{name: "binpack: same card twice", node: l4Node(), steps: []step{
			{req: withPolicy(slice(1, 1000, 10), "binpack"), wantDevs: "GPU-l4-1,NVIDIA,1000,10:;"},
			{req: withPolicy(slice(1, 1000, 10), "binpack"), wantDevs: "GPU-l4-1,NVIDIA,1000,10:;"},
		}},
		{name: "IgnorePolicy spreads binpack pods", node: l4Node(), faults: Faults{IgnorePolicy: true}, steps: []step{
			{req: withPolicy(slice(1, 1000, 10), "binpack"), wantDevs: "GPU-l4-1,NVIDIA,1000,10:;"},
			{req: withPolicy(slice(1, 1000, 10), "binpack"), wantDevs: "GPU-l4-0,NVIDIA,1000,10:;"},
		}},
		{name: "mutex policy refuses a used card", node: a100Node(), steps: []step{
			{req: slice(1, 1000, 10), wantDevs: "GPU-a100-0,NVIDIA,1000,10:;"},
			{req: withPolicy(slice(1, 1000, 10), "mutex"), wantReason: "1/1 ExclusiveDeviceAllocateConflict"},
		}},
		{name: "gpu:2 takes both L4s in one container entry", node: l4Node(), steps: []step{
			{req: slice(2, 1000, 10), wantDevs: "GPU-l4-1,NVIDIA,1000,10:GPU-l4-0,NVIDIA,1000,10:;"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			node := tc.node
			for i, s := range tc.steps {
				fit := fitNode(node, s.req, tc.faults)
				if got := fit.Devices.Encode(); fit.fits() != (s.wantReason == "") || got != s.wantDevs || fit.Reason != s.wantReason {
					t.Fatalf("pod %d: devices %q reason %q, want devices %q reason %q", i+1, got, fit.Reason, s.wantDevs, s.wantReason)
				}
				node = use(node, fit.Devices)
			}
		})
	}
}

func TestSplitCount(t *testing.T) {
	t.Parallel()
	for _, f := range []Faults{{}, {IgnoreSplitCount: true}} {
		node := a100Node()
		for range 10 {
			node = use(node, fitNode(node, slice(1, 100, 1), f).Devices)
		}
		fit := fitNode(node, slice(1, 100, 1), f)
		want := "1/1 CardTimeSlicingExhausted"
		if f.IgnoreSplitCount {
			want = ""
		}
		if fit.Reason != want {
			t.Errorf("faults %+v: 11th pod reason %q, want %q", f, fit.Reason, want)
		}
	}
}

func TestCardChecksInOrder(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		mod  func(*nodeCards)
		req  podRequest
		want string
	}{
		{"unhealthy before everything", func(n *nodeCards) { n.Cards[0].Health = false },
			withTypes(slice(1, 90000, 0), "H100"), "1/1 CardNotHealth"},
		{"cordoned before type", func(n *nodeCards) { n.Cordoned = []string{"GPU-a100-0"} },
			withTypes(slice(1, 90000, 0), "H100"), "1/1 CardCordoned"},
		{"type before memory", func(*nodeCards) {}, withTypes(slice(1, 90000, 0), "H100"), "1/1 CardTypeMismatch"},
		{"uuid before memory", func(*nodeCards) {},
			podRequest{Containers: slice(1, 90000, 0).Containers, NoUseUUIDs: []string{"GPU-a100-0"}}, "1/1 CardUuidMismatch"},
		{"memory before cores", func(n *nodeCards) { n.Cards[0].UsedCores = 100; n.Cards[0].Used = 1 },
			slice(1, 90000, 10), "1/1 CardInsufficientMemory"},
		{"compute exhausted for a zero-core pod", func(n *nodeCards) { n.Cards[0].UsedCores = 100; n.Cards[0].Used = 1 },
			slice(1, 10, 0), "1/1 CardComputeUnitsExhausted"},
		{"nouse-gputype is a case-insensitive substring", func(*nodeCards) {},
			podRequest{Containers: slice(1, 10, 0).Containers, NoUseTypes: []string{"a100"}}, "1/1 CardTypeMismatch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := a100Node()
			tc.mod(&n)
			if got := fitNode(n, tc.req, Faults{}).Reason; got != tc.want {
				t.Errorf("reason %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMultiContainer(t *testing.T) {
	t.Parallel()
	// An init container without GPUs, two app containers with slices: the
	// grant has one entry per container and the second container sees the
	// first one's usage.
	req := podRequest{GPUPolicy: "spread", Containers: []containerRequest{
		{},
		{Nums: 1, MemMB: 1000, MemPercent: percentUnset, Cores: 10},
		{Nums: 1, MemMB: 1000, MemPercent: percentUnset, Cores: 10},
	}}
	fit := fitNode(l4Node(), req, Faults{})
	if got, want := fit.Devices.Encode(), ";GPU-l4-1,NVIDIA,1000,10:;GPU-l4-0,NVIDIA,1000,10:;"; got != want {
		t.Errorf("devices %q, want %q", got, want)
	}
}

func TestNodeScoreAndPick(t *testing.T) {
	t.Parallel()
	node := a100Node()
	scores := []string{}
	for range 3 {
		scores = append(scores, fmt.Sprintf("%.2f", nodeScore(node.Cards)))
		node = use(node, fitNode(node, slice(1, 20000, 30), Faults{}).Devices)
	}
	if fmt.Sprint(scores) != "[0.00 6.44 12.88]" {
		t.Errorf("scores before each pod = %v, want [0.00 6.44 12.88] (as observed on HAMi)", scores)
	}
	fits := []nodeFit{{Node: "empty", Score: 0}, {Node: "busy", Score: 5}, {Node: "full", Score: 9, Reason: "1/1 CardInsufficientCore"}}
	if got, _ := pickNode(fits, "binpack"); got.Node != "busy" {
		t.Errorf("binpack picked %s, want busy", got.Node)
	}
	if got, _ := pickNode(fits, "spread"); got.Node != "empty" {
		t.Errorf("spread picked %s, want empty", got.Node)
	}
	if _, ok := pickNode(fits[2:], "binpack"); ok {
		t.Error("PickNode chose a node that does not fit")
	}
}

func TestMixedCardReasons(t *testing.T) {
	t.Parallel()
	n := l4Node()
	n.Cordoned = []string{"GPU-l4-0"}
	fit := fitNode(n, slice(1, 30000, 0), Faults{})
	if want := "1/2 CardCordoned, 1/2 CardInsufficientMemory"; fit.Reason != want {
		t.Errorf("reason %q, want %q", fit.Reason, want)
	}
	if len(fit.CardReasons) != 2 {
		t.Errorf("card reasons %v, want both", fit.CardReasons)
	}
}
