package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/suite"
	"github.com/gpu-lab/gpu-lab/ci/testenv"
	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// otherLabs is several labs beyond the seed in one lab file, so one local
// environment (one start, about a tenant's worth of processes each) runs
// them all: a server with 8 × H100, a tenant with two workers of different
// models, T4 and L40S cards, and four tenants in all. The server is the
// only worker with several cards, so the sharing scenario and the two-card
// scenario run side by side on different cards of it, as on a real server.
// The GPU scenarios land on dgx and mixed (placement picks the biggest card
// and the least-loaded workers); tesla and ada host none and take part in
// the cases that visit every tenant (version, registration, webhook,
// isolation), so those run across four control planes.
const otherLabs = `
name: labs
tenants:
  - name: dgx        # a typical real server: one worker, eight H100s
    workers:
      - name: h100
        gpus: [{model: H100-80GB, count: 8}]
  - name: mixed      # two workers of different models: node policy (TC-17)
    workers:
      - name: t4
        gpus: [{model: T4, count: 1}]
      - name: l40s
        gpus: [{model: L40S, count: 1}]
  - name: tesla      # one small card (16 GB): registration and isolation only
    workers:
      - name: w
        gpus: [{model: T4, count: 1}]
  - name: ada        # one 48 GB card: registration and isolation only
    workers:
      - name: w
        gpus: [{model: L40S, count: 1}]
`

// otherLabBreakages break the cases the seed lab cannot break
// (brokenElsewhere); they run on otherLabs (TestOtherLabs), those of one
// tenant in this order. On otherLabs TC-17 runs on tenant mixed, TC-03 and
// TC-13 on dgx's first H100.
var otherLabBreakages = []breakage{
	{id: "TC-17", why: "the double chooses nodes the wrong way round (binpack as spread)", on: []string{"mixed"},
		double: hamidouble.Faults{InvertNodePolicy: true}, want: "under the lab's node policy (binpack) pod"},
	{id: "TC-17", why: "the double ignores hami.io/node-scheduler-policy", on: []string{"mixed"},
		double: hamidouble.Faults{IgnoreNodePolicyAnnotation: true}, want: "want the emptier node"},
	// Nothing runs on dgx after it: its double keeps the usage of the
	// deleted pods for good.
	{id: "TC-13", why: "the double never forgets deleted pods", on: []string{"dgx"},
		double: hamidouble.Faults{KeepDeletedUsage: true}, want: "fresh pods in a row were declared unschedulable, so the capacity was " +
			"not released"},
}

// The suite passes on labs beyond the seed with nothing skipped, every card
// is drawn at its busiest, and the node-policy case fails when the double
// gets the policy wrong. The environment is the test's own, booted while
// the seed-lab tests run, and stopped after the breakages, one of which
// leaves damage.
func TestOtherLabs(t *testing.T) {
	requireEnvironments(t)
	t.Parallel()
	l, err := lab.Parse([]byte(otherLabs))
	if err != nil {
		t.Fatal(err)
	}
	e, err := startEnv(l, testenv.Options{}, 5*time.Minute)
	if err != nil {
		t.Fatalf("start the local environment for %d tenants: %v", len(l.Tenants), err)
	}
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	t.Logf("%d tenants up in %s", len(l.Tenants), e.BootTime().Round(time.Millisecond))

	t.Run("all pass", func(t *testing.T) {
		start := time.Now()
		run, err := suite.Run(context.Background(), config(e))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("suite took %s", time.Since(start).Round(time.Millisecond))
		if got, want := len(run.Cases), len(suite.Cases()); got != want {
			t.Errorf("ran %d cases, want all %d", got, want)
		}
		for _, c := range run.Cases {
			if c.Status != results.Passed && !skippedWithoutPlugin(c) {
				t.Errorf("%s %s: %s: %s\n%s", c.ID, c.Title, c.Status, c.Message, c.Details)
			}
		}
		if t.Failed() {
			logRun(t, run)
		}
		byCase := byID(run)
		// Placed on the hardware the lab has, not on the seed's shape.
		for id, want := range map[string]string{
			"TC-03": "dgx/h100 card 0", "TC-09": "dgx/h100 cards 1,2", "TC-17": "mixed/t4 card 0 + mixed/l40s card 0",
		} {
			if got := byCase[id].Scenario; got != want {
				t.Errorf("%s ran on %q, want %q", id, got, want)
			}
		}
		// Every tenant with GPU cases has a picture of its cards in use,
		// sampled while the case held them, not only the empty end.
		for _, tn := range e.Tenants() {
			if !sampledBusy(run, tn) && usesGPUs(run, tn) {
				t.Errorf("tenant %s ran GPU cases but no sample shows its cards in use", tn)
			}
		}
	})

	// Breakages of different tenants run at once, those of one tenant in
	// the order listed.
	byTenant := map[string][]breakage{}
	var tenants []string
	for _, bk := range otherLabBreakages {
		tn := strings.Join(bk.on, ",")
		if byTenant[tn] == nil {
			tenants = append(tenants, tn)
		}
		byTenant[tn] = append(byTenant[tn], bk)
	}
	for _, tn := range tenants {
		t.Run(tn, func(t *testing.T) {
			t.Parallel()
			for _, bk := range byTenant[tn] {
				t.Run(bk.id+" broken: "+bk.why, func(t *testing.T) { runBreakage(t, e, bk) })
			}
		})
	}
}

// usesGPUs reports whether a GPU scenario of the run used the tenant.
func usesGPUs(run *results.Run, tenant string) bool {
	for _, c := range run.Cases {
		if c.Scenario != "" && strings.HasPrefix(c.Scenario, tenant+"/") {
			return true
		}
	}
	return false
}
