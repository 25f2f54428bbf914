package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/suite"
	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// HAMi's own client is rate limited (--kube-qps/--kube-burst): with real
// HAMi, TC-14's ten binds wait for it (hami-observed.md §7.4). The double
// runs at the lab's rate, so TC-14 makes it wait too. (With the NoThrottle
// fault it never waits and this test fails; that run costs ~14 s, the
// binds colliding in lock-step as with real HAMi at QPS 50, so it is not
// repeated here: hamidouble's throttle tests cover the switch.)
func TestTC14MeetsHAMisClientRateLimit(t *testing.T) {
	e := needEnv(t)
	for _, tc := range []struct {
		name      string
		faults    hamidouble.Faults
		wantWaits bool
	}{
		{"at the lab's rate", hamidouble.Faults{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			faults(tc.faults)(t, e, nil)
			before := map[string]hamidouble.ThrottleStats{}
			for _, tn := range e.Tenants() {
				s, err := e.Double(tn).ThrottleStats()
				if err != nil {
					t.Fatal(err)
				}
				before[tn] = s
			}
			cfg := config(e)
			cfg.Run = "^TC-14$"
			run, err := suite.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if c := byID(run)["TC-14"]; c.Status != results.Passed {
				logRun(t, run)
				t.Fatalf("TC-14 %s: %s", c.Status, c.Message)
			}
			var waited time.Duration
			var requests int64
			for _, tn := range e.Tenants() {
				s, err := e.Double(tn).ThrottleStats()
				if err != nil {
					t.Fatal(err)
				}
				waited += s.Waited - before[tn].Waited
				requests += s.Requests - before[tn].Requests
			}
			t.Logf("TC-14: %d requests through the doubles' limiters, %s waited", requests, waited)
			if (waited > 0) != tc.wantWaits {
				t.Errorf("the doubles waited %s for their rate limit during TC-14, want waits: %v", waited, tc.wantWaits)
			}
		})
	}
}
