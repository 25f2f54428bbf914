package hamidouble

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
)

func TestFilterTenantB(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	small := limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "1000", "nvidia.com/gpucores", "10")

	// Default spread: different cards, the last index first.
	for i, want := range []int{1, 0} {
		p := e.gpuPod([]string{"g1", "g2"}[i], nodeB, small, nil)
		e.filter(p, nodeB)
		if got := e.pod(p.Name).Annotations[gpus.AnnoDevicesAllocated]; got != e.uuid(nodeB, want)+",NVIDIA,1000,10:;" {
			t.Errorf("%s: %q, want card %d", p.Name, got, want)
		}
	}
	// binpack by annotation: both on the most-loaded card (l4-1 and l4-0
	// are equal now, so the last index wins, then stays).
	for _, name := range []string{"h1", "h2"} {
		p := e.gpuPod(name, nodeB, small, map[string]string{gpus.AnnoGPUPolicy: "binpack"})
		e.filter(p, nodeB)
		if got := e.pod(name).Annotations[gpus.AnnoDevicesAllocated]; got != e.uuid(nodeB, 1)+",NVIDIA,1000,10:;" {
			t.Errorf("%s: %q, want card 1", name, got)
		}
	}

	// Node-level reason: no per-reason event, only the summary.
	three := e.gpuPod("j", nodeB, limits("nvidia.com/gpu", "3"), nil)
	if fr := e.filter(three, nodeB); fr.FailedNodes[nodeB] != "NodeInsufficientDevice" {
		t.Errorf("gpu:3: %v, want NodeInsufficientDevice", fr.FailedNodes)
	}
	e.waitEvent("j", eventFilteringFailed, "no available node, 1 nodes do not meet")
	evs, _ := e.c.CoreV1().Events("ns").List(e.ctx, metav1.ListOptions{})
	for _, ev := range evs.Items {
		if ev.InvolvedObject.Name == "j" && ev.Message != "no available node, 1 nodes do not meet" {
			t.Errorf("unexpected event for a node-level failure: %s %q", ev.Reason, ev.Message)
		}
	}

	typed := e.gpuPod("k", nodeB, small, map[string]string{gpus.AnnoUseGPUType: "A100"})
	if fr := e.filter(typed, nodeB); fr.FailedNodes[nodeB] != "2/2 CardTypeMismatch" {
		t.Errorf("use-gputype A100 on L4: %v, want 2/2 CardTypeMismatch", fr.FailedNodes)
	}
	e.waitEvent("k", eventFilteringFailed, "1 nodes CardTypeMismatch(worker-b)")
}

// TestFilterNodesForm: without nodeCacheCapable kube-scheduler sends whole
// Node objects and expects them back.
func TestFilterNodesForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	// 30000 MB fits the A100 but neither 24576 MB L4.
	p := e.gpuPod("p", nodeA, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "30000"), nil)
	var res extenderv1.ExtenderFilterResult
	e.post("/filter", extenderv1.ExtenderArgs{Pod: p, Nodes: &corev1.NodeList{Items: []corev1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: nodeA}}, {ObjectMeta: metav1.ObjectMeta{Name: nodeB}},
	}}}, &res)
	if res.Nodes == nil || len(res.Nodes.Items) != 1 || res.Nodes.Items[0].Name != nodeA || res.NodeNames != nil {
		t.Fatalf("result %+v, want Nodes [worker-a]", res)
	}
	if res.FailedNodes[nodeB] != "2/2 CardInsufficientMemory" {
		t.Errorf("worker-b: %q, want 2/2 CardInsufficientMemory", res.FailedNodes[nodeB])
	}
	e.waitEvent("p", eventFilteringSucceed, "find fit node(worker-a), 1 nodes not fit, 1 nodes fit(worker-a:0.00)")
}

// TestNodePolicy: with two fitting nodes, binpack picks the busier node and
// spread (per-pod annotation) the emptier one.
func TestNodePolicy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	small := limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "1000", "nvidia.com/gpucores", "10")
	e.filter(e.gpuPod("first", nodeA, small, nil), nodeA)
	bin := e.gpuPod("bin", nodeA, small, nil)
	if fr := e.filter(bin, nodeB, nodeA); fr.NodeNames == nil || (*fr.NodeNames)[0] != nodeA {
		t.Errorf("binpack: %v, want worker-a (already used)", fr.NodeNames)
	}
	spread := e.gpuPod("spread", nodeA, small, map[string]string{gpus.AnnoNodePolicy: "spread"})
	if fr := e.filter(spread, nodeA, nodeB); fr.NodeNames == nil || (*fr.NodeNames)[0] != nodeB {
		t.Errorf("spread: %v, want worker-b (empty)", fr.NodeNames)
	}
}

func TestFilterPassesNonGPUPods(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	p := e.gpuPod("cpu", nodeA, limits("cpu", "1"), nil)
	fr := e.filter(p, nodeA, nodeB)
	if fr.NodeNames == nil || len(*fr.NodeNames) != 2 || len(fr.FailedNodes) != 0 {
		t.Errorf("non-GPU pod: %+v, want both nodes back", fr)
	}
	if a := e.pod("cpu").Annotations; a[gpus.AnnoVGPUNode] != "" {
		t.Errorf("non-GPU pod annotated: %v", a)
	}
}
