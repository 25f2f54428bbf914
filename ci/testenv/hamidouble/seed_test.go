package hamidouble

import (
	"strings"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
)

// TestSeedScenario runs the seed lab's checks on tenant-a's A100 through the
// HTTP routes: three 20000 MB + 30 % pods bind to the one card (with the
// product bind finalizer releasing the lock between binds), a 90000 MB pod
// and a fourth 30 % pod are refused with HAMi's reasons and events.
func TestSeedScenario(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	card := e.uuid(nodeA, 0)
	for _, name := range []string{"a1", "a2", "a3"} {
		p := e.gpuPod(name, nodeA, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "20000", "nvidia.com/gpucores", "30"), nil)
		node, errText := e.schedule(p, nodeA)
		if errText != "" || node != nodeA {
			t.Fatalf("%s: node %q error %q, want bound to %s", name, node, errText, nodeA)
		}
		got := e.pod(name)
		want := card + ",NVIDIA,20000,30:;"
		a := got.Annotations
		if a[gpus.AnnoDevicesAllocated] != want || a[gpus.AnnoDevicesToAlloc] != want || a[gpus.AnnoVGPUNode] != nodeA ||
			got.Labels[gpus.AnnoVGPUNode] != nodeA || a[gpus.AnnoVGPUTime] == "" {
			t.Fatalf("%s: Filter annotations/labels = %v %v, want devices %q on %s", name, a, got.Labels, want, nodeA)
		}
		if a[gpus.AnnoBindPhase] != gpus.BindPhaseAllocating || a[gpus.AnnoBindTime] == "" || got.Spec.NodeName != nodeA {
			t.Fatalf("%s: bind-phase %q bind-time %q nodeName %q, want allocating on %s",
				name, a[gpus.AnnoBindPhase], a[gpus.AnnoBindTime], got.Spec.NodeName, nodeA)
		}
		if v, ok := e.lock(nodeA); !ok || !strings.HasSuffix(v, ",ns,"+name) {
			t.Fatalf("%s: node lock %q, want one naming ns/%s", name, v, name)
		}
		e.waitEvent(name, eventBindingSucceed, "Successfully binding node [worker-a] to ns/"+name)
		if err := deviceplugin.FinishBind(e.ctx, e.c, got); err != nil {
			t.Fatal(err)
		}
	}
	e.waitEvent("a1", eventFilteringSucceed, "find fit node(worker-a), 0 nodes not fit, 1 nodes fit(worker-a:0.00)")
	e.waitEvent("a2", eventFilteringSucceed, "find fit node(worker-a), 0 nodes not fit, 1 nodes fit(worker-a:6.44)")
	e.waitEvent("a3", eventFilteringSucceed, "find fit node(worker-a), 0 nodes not fit, 1 nodes fit(worker-a:12.88)")

	big := e.gpuPod("big", nodeA, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "90000"), nil)
	fr := e.filter(big, nodeA)
	if fr.FailedNodes[nodeA] != "1/1 CardInsufficientMemory" || len(*fr.NodeNames) != 0 {
		t.Errorf("90000 MB pod: %+v, want FailedNodes worker-a: 1/1 CardInsufficientMemory", fr)
	}
	e.waitEvent("big", eventFilteringFailed, "1 nodes CardInsufficientMemory(worker-a)")
	e.waitEvent("big", eventFilteringFailed, "no available node, 1 nodes do not meet")
	if a := e.pod("big").Annotations; a[gpus.AnnoVGPUNode] != "" {
		t.Errorf("refused pod was annotated: %v", a)
	}

	a4 := e.gpuPod("a4", nodeA, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "20000", "nvidia.com/gpucores", "30"), nil)
	if fr := e.filter(a4, nodeA); fr.FailedNodes[nodeA] != "1/1 CardInsufficientCore" {
		t.Errorf("fourth 30%% pod: FailedNodes %v, want 1/1 CardInsufficientCore", fr.FailedNodes)
	}
	e.waitEvent("a4", eventFilteringFailed, "1 nodes CardInsufficientCore(worker-a)")
}
