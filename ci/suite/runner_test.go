package suite

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpu-lab/gpu-lab/ci/gpus"

	"github.com/gpu-lab/gpu-lab/ci/results"
)

func fakeCase(id string, needs []string, run func(context.Context, *caseT) error) *caseRun {
	return &caseRun{Case: caseByID(id), tenants: []string{"tenant-a"}, needs: needs, run: run}
}

func TestExecuteOrderBlockAndCleanup(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-lab-tenant-a-worker",
		Annotations: map[string]string{gpus.AnnoRegister: "[]", gpus.AnnoNodeLock: "2026-11-30T00:26:44Z,ns,p"}}}
	r, fakes := fakeRunner(map[string][]runtime.Object{"tenant-a": {node}})
	var order []string
	mark := func(id string, err error) func(context.Context, *caseT) error {
		return func(ctx context.Context, t *caseT) error {
			order = append(order, id)
			if _, nerr := t.namespace(ctx, "tenant-a"); nerr != nil {
				return nerr
			}
			t.step("did %s", id)
			return err
		}
	}
	tasks := []*task{{scenario: "s", cases: []*caseRun{
		fakeCase("TC-03", nil, mark("TC-03", errors.New("three pods: pod x not bound within 1s"))),
		fakeCase("TC-05", []string{"TC-03"}, mark("TC-05", nil)),
		fakeCase("TC-06", nil, mark("TC-06", nil)),
		fakeCase("TC-07", nil, func(context.Context, *caseT) error { panic("boom") }),
	}}}
	run := r.execute(context.Background(), tasks)
	if got := strings.Join(order, " "); got != "TC-03 TC-06" {
		t.Errorf("ran %q, want TC-03 then TC-06 (TC-05 blocked)", got)
	}
	byID := map[string]results.Case{}
	for _, c := range run.Cases {
		byID[c.ID] = c
	}
	if c := byID["TC-03"]; c.Status != results.Failed || c.Message != "three pods: pod x not bound within 1s" || c.Scenario != "s" {
		t.Errorf("TC-03 = %+v", c)
	}
	if c := byID["TC-03"]; c.Diagnostics["events.txt"] == "" || c.Diagnostics["nodes.txt"] == "" {
		t.Errorf("TC-03 diagnostics = %v, want events and nodes", c.Diagnostics)
	}
	if n := byID["TC-03"].Diagnostics["nodes.txt"]; !strings.Contains(n, "hami.io/mutex.lock: 2026-11-30T00:26:44Z,ns,p") {
		t.Errorf("nodes.txt = %s", n)
	}
	if c := byID["TC-05"]; c.Status != results.Skipped ||
		!strings.Contains(c.Message, "blocked: needs the state TC-03 sets up, and TC-03 failed") {
		t.Errorf("TC-05 = %+v", c)
	}
	if c := byID["TC-06"]; c.Status != results.Passed || len(c.Steps) != 2 {
		t.Errorf("TC-06 = %+v", c)
	}
	if c := byID["TC-07"]; c.Status != results.Failed || !strings.HasPrefix(c.Message, "panic: boom") {
		t.Errorf("TC-07 = %+v", c)
	}
	if run.OK() || run.Interrupted || run.Parallel != 1 {
		t.Errorf("run OK=%v interrupted=%v parallel=%d", run.OK(), run.Interrupted, run.Parallel)
	}
	// Every namespace the scenario made is deleted when it ends.
	nss, _ := fakes["tenant-a"].CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{})
	if len(nss.Items) != 0 {
		t.Errorf("namespaces left: %d", len(nss.Items))
	}
	if len(run.Tenants) != 2 || run.Tenants[0].Moment != "end of run" {
		t.Errorf("end-of-run states = %+v", run.Tenants)
	}
}

func TestExecuteInterruptedCleansUp(t *testing.T) {
	r, fakes := fakeRunner(nil)
	ctx, cancel := context.WithCancel(context.Background())
	tasks := []*task{{scenario: "s", cases: []*caseRun{
		fakeCase("TC-03", nil, func(ctx context.Context, t *caseT) error {
			if _, err := t.namespace(ctx, "tenant-a"); err != nil {
				return err
			}
			cancel() // Ctrl-C while the case runs
			<-ctx.Done()
			return ctx.Err()
		}),
		fakeCase("TC-05", nil, func(context.Context, *caseT) error { t.Error("TC-05 ran after the interrupt"); return nil }),
	}}}
	run := r.execute(ctx, tasks)
	if !run.Interrupted || run.OK() {
		t.Fatalf("interrupted=%v", run.Interrupted)
	}
	if c := run.Cases[0]; c.Status != results.Failed || !strings.HasPrefix(c.Message, "interrupted: ") {
		t.Errorf("TC-03 = %+v", c)
	}
	if c := run.Cases[1]; c.Status != results.Skipped || c.Message != "not run: the run was interrupted" {
		t.Errorf("TC-05 = %+v", c)
	}
	nss, _ := fakes["tenant-a"].CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{})
	if len(nss.Items) != 0 {
		t.Errorf("namespaces left after Ctrl-C: %d", len(nss.Items))
	}
}

// In parallel, the four cases run at once: each waits until all four are
// running (a barrier, not a sleep, so a machine that is slow to start a
// goroutine cannot make them miss each other; the bound only ends a runner
// that never runs them together). Serial, they run one at a time.
func TestExecuteParallelAndSerial(t *testing.T) {
	for _, serial := range []bool{false, true} {
		r, _ := fakeRunner(nil)
		r.cfg.Serial = serial
		var running, peak atomic.Int32
		together := make(chan struct{})
		slow := func(context.Context, *caseT) error {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			if serial {
				time.Sleep(50 * time.Millisecond)
			} else {
				if n == 4 {
					close(together)
				}
				select {
				case <-together:
				case <-time.After(10 * time.Second):
				}
			}
			running.Add(-1)
			return nil
		}
		var tasks []*task
		for _, id := range []string{"TC-01", "TC-02", "TC-04", "TC-08"} {
			tasks = append(tasks, &task{cases: []*caseRun{fakeCase(id, nil, slow)}})
		}
		run := r.execute(context.Background(), tasks)
		want := int32(4)
		if serial {
			want = 1
		}
		if peak.Load() != want || run.Parallel != int(want) {
			t.Errorf("serial=%v: peak concurrency %d, Parallel %d, want %d", serial, peak.Load(), run.Parallel, want)
		}
		if !run.OK() || len(run.Cases) != 4 || run.Cases[0].ID != "TC-01" {
			t.Errorf("serial=%v: run = %+v", serial, run.Cases)
		}
	}
}
