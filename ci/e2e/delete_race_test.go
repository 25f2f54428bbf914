package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/suite"
	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// forgetLate is far longer than real HAMi's 1–20 ms so that TC-13's first
// fresh pod always meets the race: it is refused 15–50 ms after the delete,
// idle or beside a busy loop per CPU. The suite tries its second fresh pod
// ~600 ms after the delete (bindFresh waits 500 ms), past forgetLate, so
// each of the three waits (TC-13 once, TC-16 twice) costs one retry, not
// two. It was 3 s, then 1 s (the test held tenant-a 16 s, then 10 s), for
// no more proof.
const forgetLate = 400 * time.Millisecond

// Real HAMi forgets a deleted pod's usage a little after kube-scheduler has
// already re-filtered (hami-observed.md §3e): a pod filtered in between is
// refused as if the capacity were still held. With the double forgetting
// deleted pods forgetLate late, the cases that free capacity (TC-13, TC-16)
// still pass, and TC-13 shows it met the race and tried a fresh pod. Both
// run on tenant-a's card, which the test holds with the fault on its double.
func TestDeleteRaceIsSurvived(t *testing.T) {
	requireEnvironments(t)
	t.Parallel()
	const tenant = "tenant-a"
	seeds.requireDouble(t)
	e := leaseSeed(t, []string{tenant}, nil)
	setFaults(t, e, hamidouble.Faults{ForgetDeletedAfter: forgetLate}, tenant)
	// The suite deletes its pods at the end; the next test must not meet
	// usage the double forgets late.
	t.Cleanup(func() {
		deadline := time.Now().Add(20 * time.Second)
		for _, tn := range []string{tenant} {
			counted := func() int {
				n, err := e.Double(tn).CountedPods()
				if err != nil {
					t.Fatalf("%s: %v", tn, err)
				}
				return n
			}
			for counted() > 0 && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			if n := counted(); n > 0 {
				t.Errorf("%s: the double still counts %d deleted pods", tn, n)
			}
		}
	})
	cfg := config(e)
	cfg.Run = "^TC-1[36]$"
	run, err := suite.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cases := byID(run)
	for _, id := range []string{"TC-13", "TC-16"} {
		requireOn(t, cases[id], tenant)
		if c := cases[id]; c.Status != results.Passed {
			logRun(t, run)
			t.Errorf("%s %s with the delete race on: %s", id, c.Status, c.Message)
		}
	}
	met := false
	for _, s := range cases["TC-13"].Steps {
		if strings.Contains(s.Message, "kube-scheduler refused") {
			met = true
		}
	}
	if !met {
		logRun(t, run)
		t.Errorf("TC-13 never met the delete race: its fresh pod was bound at the first try although the double forgot the deleted pod %s late", forgetLate)
	}
}
