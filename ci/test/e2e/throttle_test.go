package e2e

import (
	"context"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/results"
	"github.com/gpu-lab/gpu-lab/ci/suite"
	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// HAMi's own client is rate limited (--kube-qps/--kube-burst): with real
// HAMi, TC-14's ten binds wait for it (HAMI-FACTS.md §5.4). The double
// runs at the lab's rate, so TC-14 makes it wait too. (With the NoThrottle
// fault it never waits and this test fails; that run costs ~14 s, the
// binds colliding in lock-step as with real HAMi at QPS 50, so it is not
// repeated here: hamidouble's throttle tests cover the switch.) On the seed
// lab TC-14 runs on tenant-b, which the test holds, so only TC-14 goes
// through that tenant's double meanwhile.
func TestTC14MeetsHAMisClientRateLimit(t *testing.T) {
	requireEnvironments(t)
	t.Parallel()
	const tenant = "tenant-b"
	seeds.requireDouble(t)
	e := leaseSeed(t, []string{tenant}, nil)
	for _, tc := range []struct {
		name      string
		faults    hamidouble.Faults
		wantWaits bool
	}{
		{"at the lab's rate", hamidouble.Faults{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setFaults(t, e, tc.faults, tenant)
			before, err := e.Double(tenant).ThrottleStats()
			if err != nil {
				t.Fatal(err)
			}
			cfg := config(e)
			cfg.Run = "^TC-14$"
			run, err := suite.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			c := byID(run)["TC-14"]
			requireOn(t, c, tenant)
			if c.Status != results.Passed {
				logRun(t, run)
				t.Fatalf("TC-14 %s: %s", c.Status, c.Message)
			}
			after, err := e.Double(tenant).ThrottleStats()
			if err != nil {
				t.Fatal(err)
			}
			waited, requests := after.Waited-before.Waited, after.Requests-before.Requests
			t.Logf("TC-14: %d requests through %s's double's limiter, %s waited", requests, tenant, waited)
			if (waited > 0) != tc.wantWaits {
				t.Errorf("%s's double waited %s for its rate limit during TC-14, want waits: %v", tenant, waited, tc.wantWaits)
			}
		})
	}
}
