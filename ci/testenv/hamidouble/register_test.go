package hamidouble

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/gpus/deviceplugin"
)

// editNode changes a node through the API and waits until the double's node
// informer has the change, so the next registration pass reads it.
func (e *env) editNode(name string, edit func(*corev1.Node), status bool) {
	e.t.Helper()
	n, err := e.c.CoreV1().Nodes().Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	edit(n)
	if status {
		n, err = e.c.CoreV1().Nodes().UpdateStatus(e.ctx, n, metav1.UpdateOptions{})
	} else {
		n, err = e.c.CoreV1().Nodes().Update(e.ctx, n, metav1.UpdateOptions{})
	}
	if err != nil {
		e.t.Fatal(err)
	}
	e.waitNodeCached(n, "the edit of "+name)
}

// waitNodeCached waits until the double's node informer has the node's
// annotations and allocatable as n has them. The fake clientset sets no
// resourceVersion: compare what passes read.
func (e *env) waitNodeCached(n *corev1.Node, what string) {
	e.t.Helper()
	waitFor(e.t, "the node informer to see "+what, func() bool {
		cached, err := e.d.nodes.Get(n.Name)
		return err == nil && apiequality.Semantic.DeepEqual(cached.Annotations, n.Annotations) &&
			apiequality.Semantic.DeepEqual(cached.Status.Allocatable, n.Status.Allocatable)
	})
}

// threeL4s is worker-b's register annotation with a third card added.
func (e *env) threeL4s() string {
	devs := gpus.Devices(e.lab, "tenant-b", e.lab.Tenants[1].Workers[0])
	extra := devs[1]
	extra.ID, extra.Index = "GPU-extra-l4", 2
	return gpus.EncodeRegister(append(devs, extra))
}

// TestFilterWaitsForTheFirstPass: nodes that exist at start register at the
// first tick, not on the informer's initial adds; until that pass Filter
// waits (HAMi's WaitForCacheSync) and gives up with the request's context.
func TestFilterWaitsForTheFirstPass(t *testing.T) {
	t.Parallel()
	e := newUnregisteredEnv(t, Config{})
	if n := e.d.reg.passes.Load(); n != 0 {
		t.Fatalf("%d registration passes before the first tick, want 0", n)
	}
	p := slicePod(e, "p", nodeB)
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	names := []string{nodeB}
	if res := e.d.filter(ctx, &extenderv1.ExtenderArgs{Pod: p, NodeNames: &names}); res.Error != "context cancelled" {
		t.Fatalf("Filter before the first pass: %+v, want error \"context cancelled\"", res)
	}
	e.register()
	if fr := e.filter(p, nodeB); fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
		t.Fatalf("Filter after the first pass: %v, want the pod to fit", fr.FailedNodes)
	}
}

// TestAnnotationChangesWaitForTheTick: a register annotation changed between
// ticks is not seen until the next tick (HAMI-FACTS.md §5.2).
func TestAnnotationChangesWaitForTheTick(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	three := e.gpuPod("three", nodeB, limits("nvidia.com/gpu", "3", "nvidia.com/gpumem", "1000", "nvidia.com/gpucores", "10"), nil)
	e.editNode(nodeB, func(n *corev1.Node) { n.Annotations[gpus.AnnoRegister] = e.threeL4s() }, false)
	if fr := e.filter(three, nodeB); fr.FailedNodes[nodeB] != "NodeInsufficientDevice" {
		t.Fatalf("before the tick: %v, want NodeInsufficientDevice (two registered cards)", fr.FailedNodes)
	}
	e.register()
	if fr := e.filter(three, nodeB); fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
		t.Fatalf("after the tick: %v, want the pod to fit three cards", fr.FailedNodes)
	}
}

// TestNodeAddedBeforeItsAnnotation: a node added after start registers at
// once only if its annotation is already there; an annotation that arrives
// later waits for the tick, and Filter answers "node unregistered" until then.
func TestNodeAddedBeforeItsAnnotation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	before := e.d.reg.passes.Load()
	if _, err := e.c.CoreV1().Nodes().Create(e.ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "late"}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the pass the node add triggers", func() bool { return e.d.reg.passes.Load() > before })
	p := slicePod(e, "p", "late")
	if fr := e.filter(p, "late"); fr.FailedNodes["late"] != reasonNodeUnregistered {
		t.Fatalf("unannotated node: %v, want %q", fr.FailedNodes, reasonNodeUnregistered)
	}
	if err := deviceplugin.RegisterNode(e.ctx, e.c, e.lab, "tenant-b", e.lab.Tenants[1].Workers[0], "late"); err != nil {
		t.Fatal(err)
	}
	e.editNode("late", func(*corev1.Node) {}, false)
	if fr := e.filter(p, "late"); fr.FailedNodes["late"] != reasonNodeUnregistered {
		t.Fatalf("annotated between ticks: %v, want %q until the tick", fr.FailedNodes, reasonNodeUnregistered)
	}
	e.register()
	if fr := e.filter(p, "late"); fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
		t.Fatalf("after the tick: %v, want the pod to fit", fr.FailedNodes)
	}
	e.waitEvent("p", eventFilteringFailed, "no available node, 1 nodes do not meet")
}

// TestAllocatableZeroUnregisters: a registered node whose allocatable
// nvidia.com/gpu drops to 0 is unhealthy at the next pass: its cards go and
// its NVIDIA handshake is removed; IgnoreRegistrationGate keeps them.
func TestAllocatableZeroUnregisters(t *testing.T) {
	t.Parallel()
	for _, ignore := range []bool{false, true} {
		e := newEnv(t, Config{})
		e.d.setFaults(Faults{IgnoreRegistrationGate: ignore})
		e.editNode(nodeA, func(n *corev1.Node) { n.Status.Allocatable[gpus.ResourceGPU] = resource.MustParse("0") }, true)
		e.register()
		p := slicePod(e, "p", nodeA)
		fr := e.filter(p, nodeA)
		if ignore {
			if fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
				t.Errorf("IgnoreRegistrationGate: %v, want the pod to fit", fr.FailedNodes)
			}
			continue
		}
		if fr.FailedNodes[nodeA] != reasonNodeUnregistered {
			t.Errorf("allocatable 0: %v, want %q", fr.FailedNodes, reasonNodeUnregistered)
		}
		n, _ := e.c.CoreV1().Nodes().Get(e.ctx, nodeA, metav1.GetOptions{})
		if v, ok := n.Annotations[gpus.AnnoHandshake]; ok {
			t.Errorf("handshake %q kept after the cleanup, want it removed", v)
		}
	}
}

// TestHandshakeAnnotations: the first pass writes every vendor's handshake
// as "Requesting_<local time>"; later passes leave a Requesting value alone;
// NoHandshake writes none.
func TestHandshakeAnnotations(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 23, 4, 19, 0, time.Local)
	for _, off := range []bool{false, true} {
		e := newUnregisteredEnv(t, Config{})
		e.d.now = func() time.Time { return at }
		e.d.setFaults(Faults{NoHandshake: off})
		e.register()
		// The next pass reads nodes from the informer: until it has the
		// handshakes just written, that pass would write them again (seen
		// under CPU load, with or without parallel tests).
		for _, name := range []string{nodeA, nodeB} {
			n, err := e.c.CoreV1().Nodes().Get(e.ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			e.waitNodeCached(n, "the first pass's handshakes on "+name)
		}
		e.d.now = func() time.Time { return at.Add(time.Hour) }
		e.register()
		n, _ := e.c.CoreV1().Nodes().Get(e.ctx, nodeA, metav1.GetOptions{})
		for _, key := range []string{"hami.io/node-handshake", "hami.io/node-handshake-dcu", "hami.io/node-handshake-xpu",
			"hami.io/node-handshake-va", "hami.io/node-handshake-biren"} {
			got, ok := n.Annotations[key]
			switch {
			case off && ok:
				t.Errorf("NoHandshake: %s = %q, want none", key, got)
			case !off && got != "Requesting_2026-11-30 23:04:19":
				t.Errorf("%s = %q, want the first pass's Requesting_2026-11-30 23:04:19", key, got)
			}
		}
	}
}

// TestNeverRegister: the fault leaves every node unregistered.
func TestNeverRegister(t *testing.T) {
	t.Parallel()
	e := newUnregisteredEnv(t, Config{})
	e.d.setFaults(Faults{NeverRegister: true})
	e.register()
	if fr := e.filter(slicePod(e, "p", nodeA), nodeA); fr.FailedNodes[nodeA] != reasonNodeUnregistered {
		t.Errorf("NeverRegister: %v, want %q", fr.FailedNodes, reasonNodeUnregistered)
	}
}

// TestRegisterInstantly: annotation changes count at once, no tick needed.
func TestRegisterInstantly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{RegisterInstantly: true})
	three := e.gpuPod("three", nodeB, limits("nvidia.com/gpu", "3", "nvidia.com/gpumem", "1000", "nvidia.com/gpucores", "10"), nil)
	e.editNode(nodeB, func(n *corev1.Node) { n.Annotations[gpus.AnnoRegister] = e.threeL4s() }, false)
	if fr := e.filter(three, nodeB); fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
		t.Fatalf("RegisterInstantly: %v, want the third card seen at once", fr.FailedNodes)
	}
	if strings.Contains(e.pod("three").Annotations[gpus.AnnoDevicesAllocated], "GPU-extra-l4") == false {
		t.Errorf("allocation %q does not use the new card", e.pod("three").Annotations[gpus.AnnoDevicesAllocated])
	}
}
