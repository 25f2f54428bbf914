package testenv

import "testing"

// soloLog is everything the solo environment logged.
var soloLog syncBuffer

// One environment of one tenant is started with a HAMi scheduler binary
// instead of the double (hamiDropsIn) while other processes take its ports
// (withTakenPorts), then broken in turn, each step leaving what the next
// needs: the binary dropped in (hamiprocess_test.go); every component moved
// off a taken port and the moved API server answers (contention_test.go);
// every component is suspended and resumed, then kube-scheduler is killed
// (watch_test.go); then the konnectivity agent is killed and the webhook is
// no longer reached (tunnel_test.go), which needs neither.
func TestSoloEnvironment(t *testing.T) {
	requireProcesses(t)
	t.Parallel()
	e := solo.get(t)
	t.Cleanup(func() { solo.markStopped(t); _ = e.Stop() })
	t.Run("a HAMi binary drops in", func(t *testing.T) { checkHAMiBinaryDropsIn(t, e, solo.opts.HAMiBinary) })
	t.Run("every component moved off a taken port", func(t *testing.T) { checkEveryComponentMoved(t, e) })
	t.Run("names suspended and dead components", func(t *testing.T) { checkNamesSuspendedAndDeadComponents(t, e, &soloLog) })
	t.Run("webhook needs the tunnel", func(t *testing.T) { checkWebhookNeedsTheTunnel(t, e) })
}
