package hamidouble

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// calls lists the API calls since the mark, without the event sink's (it
// writes asynchronously) and the informers' list/watch.
func (e *env) calls(mark int) []string {
	var out []string
	for _, a := range e.c.Actions()[mark:] {
		if a.GetResource().Resource == "events" || a.GetVerb() == "list" || a.GetVerb() == "watch" {
			continue
		}
		call := a.GetVerb() + " " + a.GetResource().Resource
		if s := a.GetSubresource(); s != "" {
			call += "/" + s
		}
		out = append(out, call)
	}
	return out
}

// TestAPICallsPerVerb: Filter and Bind make HAMi v2.10.0's API calls, which
// is what its client-side throttling counts (pkg/scheduler/scheduler.go and
// pkg/util/nodelock/nodelock.go@v2.10.0): Filter one pod PATCH; a Bind on a
// free node three node GETs (LockNode, SetNodeLock, its retry), the lock
// PATCH, the pod PATCH and the Binding; a contended Bind a node GET, the
// lock owner's GET, and the release check's node GET.
func TestAPICallsPerVerb(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	p1, p2 := slicePod(e, "p1", nodeB), slicePod(e, "p2", nodeB)
	mark := len(e.c.Actions())
	e.filter(p1, nodeB)
	if got, want := e.calls(mark), []string{"patch pods"}; !slices.Equal(got, want) {
		t.Errorf("Filter calls %q, want %q", got, want)
	}
	mark = len(e.c.Actions())
	if br := e.bind(p1, nodeB); br.Error != "" {
		t.Fatal(br.Error)
	}
	want := []string{"get nodes", "get nodes", "get nodes", "patch nodes", "patch pods", "create pods/binding"}
	if got := e.calls(mark); !slices.Equal(got, want) {
		t.Errorf("Bind calls %q, want %q", got, want)
	}
	e.filter(p2, nodeB)
	mark = len(e.c.Actions())
	if br := e.bind(p2, nodeB); br.Error == "" {
		t.Fatal("second bind succeeded under p1's lock")
	}
	if got, want := e.calls(mark), []string{"get nodes", "get pods", "get nodes"}; !slices.Equal(got, want) {
		t.Errorf("contended Bind calls %q, want %q", got, want)
	}
	e.waitEvent("p1", eventBindingSucceed, "Successfully binding node [worker-b] to ns/p1")
}

// TestDeleteRaceFault: with ForgetDeletedAfter a deleted pod still counts
// until the delay has passed (HAMI-FACTS.md §3e), then its card is free.
func TestDeleteRaceFault(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	delays := make(chan time.Duration, 4)
	forgets := make(chan func(), 4)
	e.d.afterFunc = func(d time.Duration, f func()) { delays <- d; forgets <- f }
	e.d.setFaults(Faults{ForgetDeletedAfter: 2 * time.Second})
	fillA100(e)
	if err := e.c.CoreV1().Pods("ns").Delete(e.ctx, "a1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.sync("marker")
	fresh := e.gpuPod("fresh", nodeA, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "20000", "nvidia.com/gpucores", "30"), nil)
	if fr := e.filter(fresh, nodeA); fr.FailedNodes[nodeA] != "1/1 CardInsufficientCore" {
		t.Fatalf("inside the race window: %v, want the deleted pod still counted", fr.FailedNodes)
	}
	if d := <-delays; d != 2*time.Second {
		t.Errorf("forget scheduled after %v, want 2s", d)
	}
	(<-forgets)()
	if fr := e.filter(fresh, nodeA); fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
		t.Errorf("after the delay: %v, want the fresh pod to fit", fr.FailedNodes)
	}
}

// KeepDeletedUntilFiltered: the first Filter of the node after a delete
// counts the deleted pod however late it comes and ends the fault: the
// next Filter does not count it, and a pod deleted after that is forgotten
// at once (the suite deletes the fresh pods it gave up on; kept, each would
// refuse the next). Setting the fault again arms it again; setting the
// faults without it forgets the deleted pods no Filter met.
func TestDeleteRaceUntilFilteredFault(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Config{})
	e.d.afterFunc = func(time.Duration, func()) { t.Error("the fault scheduled a timed forget") }
	e.d.setFaults(Faults{KeepDeletedUntilFiltered: true})
	fillA100(e)
	del := func(name string) {
		t.Helper()
		if err := e.c.CoreV1().Pods("ns").Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	del("a1")
	e.sync("marker")
	fresh := e.gpuPod("fresh", nodeA, limits("nvidia.com/gpu", "1", "nvidia.com/gpumem", "20000", "nvidia.com/gpucores", "30"), nil)
	if fr := e.filter(fresh, nodeA); fr.FailedNodes[nodeA] != "1/1 CardInsufficientCore" {
		t.Fatalf("first Filter after the delete: %v, want the deleted pod still counted", fr.FailedNodes)
	}
	if fr := e.filter(fresh, nodeA); fr.NodeNames == nil || len(*fr.NodeNames) != 1 {
		t.Fatalf("second Filter: %v, want the fresh pod to fit", fr.FailedNodes)
	}
	before := e.d.countedPods()
	del("a2")
	e.sync("marker2") // +1 counted
	if n := e.d.countedPods(); n != before {
		t.Errorf("a pod deleted after the race was met: %d pods counted, want %d (a2 forgotten at once)", n, before)
	}
	e.d.setFaults(Faults{KeepDeletedUntilFiltered: true})
	del("a3")
	e.sync("marker3")
	before = e.d.countedPods()
	e.d.setFaults(Faults{})
	if n := e.d.countedPods(); n != before-1 {
		t.Errorf("faults off: %d pods counted, want %d (the deleted a3, kept by the re-armed fault, forgotten)", n, before-1)
	}
}
