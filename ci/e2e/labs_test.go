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
  - name: tesla      # one small card: sizes scaled to 16 GB
    workers:
      - name: w
        gpus: [{model: T4, count: 1}]
  - name: ada        # one 48 GB card
    workers:
      - name: w
        gpus: [{model: L40S, count: 1}]
`

// otherLabBreakages break the cases the seed lab cannot run; they run on
// otherLabs (TestOtherLabs).
var otherLabBreakages = []breakage{
	{"TC-17", "the double chooses nodes the wrong way round (binpack as spread)", faults(hamidouble.Faults{InvertNodePolicy: true}),
		"under the lab's node policy (binpack) pod", false},
	{"TC-17", "the double ignores hami.io/node-scheduler-policy", faults(hamidouble.Faults{IgnoreNodePolicyAnnotation: true}),
		"want the emptier node", false},
}

// The suite passes on labs beyond the seed with nothing skipped, every card
// is drawn at its busiest, and the node-policy case fails when the double
// gets the policy wrong.
func TestOtherLabs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local test environment of four tenants; skipped with -short")
	}
	l, err := lab.Parse([]byte(otherLabs))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	e, err := testenv.Start(ctx, l, testenv.Options{})
	cancel()
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
			if c.Status != results.Passed {
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

	for _, bk := range otherLabBreakages {
		t.Run(bk.id+" broken: "+bk.why, func(t *testing.T) {
			cfg := config(e)
			cfg.Run = "^" + bk.id + "$"
			cfg.Timeouts = suite.Timeouts{Bind: 20 * time.Second, Verdict: 20 * time.Second, Delete: 30 * time.Second, Case: 2 * time.Minute}
			bk.setup(t, e, &cfg)
			run, err := suite.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			c, ok := byID(run)[bk.id]
			if !ok || c.Status != results.Failed {
				logRun(t, run)
				t.Fatalf("%s %s with %s, want failed", bk.id, c.Status, bk.why)
			}
			if !strings.Contains(c.Message+"\n"+c.Details, bk.want) {
				t.Errorf("%s failed with %q, want it to say %q", bk.id, c.Message, bk.want)
			}
			t.Logf("%s failed as it should: %s", bk.id, c.Message)
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
