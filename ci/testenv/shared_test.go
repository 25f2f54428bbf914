package testenv

import "testing"

// The shared environment (the default lab) serves every test that only
// reads or adds its own objects: the sequential tests that ask for it
// (sharedEnv) run first, then these checks at once, and last Stop, which
// must leave nothing of an environment that has worked for every test
// before it.
func TestSharedEnvironment(t *testing.T) {
	requireProcesses(t)
	t.Parallel()
	e := sharedEnv(t)
	t.Run("in use", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			check func(*testing.T, *Env)
		}{
			{"tenants isolated", checkTenantsIsolated},
			{"tenants ready with GPU workers", checkTenantsReadyWithGPUWorkers},
			{"GPU pod mutated through konnectivity and bound", checkGPUPodMutatedThroughKonnectivityAndBound},
			{"another local user refused", checkOtherLocalUserRefused},
		} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				c.check(t, e)
			})
		}
	})
	t.Run("stop leaves no process", func(t *testing.T) {
		shared.markStopped(t)
		checkStopLeavesNoProcess(t, e)
	})
}
