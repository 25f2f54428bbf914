package testenv

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpu-lab/gpu-lab/ci/gpus"
	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/testenv/hamidouble"
)

// The environment is not ready before HAMi has registered every card: with
// a HAMi that never registers (as HAMi before its first registration
// pass), Start waits at the gate the real lab's gpus stage uses and says
// which cards HAMi's /metrics lacks, instead of reporting ready and letting
// the suite's pods be parked as "node unregistered". The double is told by
// its fault switch; a real HAMi by --node-label-selector with a label no
// node has (its registration lists only matching nodes:
// Scheduler.register, pkg/scheduler/scheduler.go@v2.10.0; the flag is
// defined in cmd/scheduler/main.go@v2.10.0), which the double does not model.
func TestReadyWaitsUntilHAMiRegisteredEveryCard(t *testing.T) {
	requireProcesses(t)
	t.Parallel()
	l, err := lab.Parse([]byte("name: unreg\ntenants:\n- name: solo\n  workers:\n  - name: w1\n    gpus: [{model: L4, count: 1}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{
		BinDir: binaries(t), Log: progress(),
		// The gate is the last wait before ready, so its own deadline fails
		// the start there, whatever the machine's load made boot take. The
		// gate starts once HAMi listens and asks its /metrics every 100 ms,
		// and an attempt begun before the deadline is not cut short
		// (waitWithin): the error keeps the last answer a scrape returned,
		// however slowly, so it names the missing card.
		RegistrationTimeout: time.Second,
	}
	if realHAMi() == "" {
		opts.DoubleFaults = hamidouble.Faults{NeverRegister: true}
	} else {
		opts.extraHAMiArgs = []string{"--node-label-selector=gpu-lab.test/never-registered=true"}
	}
	e, err := Start(context.Background(), l, opts)
	if err == nil {
		_ = e.Stop()
		t.Fatal("the environment reported ready although HAMi never registered a card")
	}
	uuid := gpus.Devices(l, "solo", l.Tenants[0].Workers[0])[0].ID
	for _, want := range []string{"HAMi sees every card", "HAMi sees 0/1 cards, missing " + uuid} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("start error lacks %q:\n%v", want, err)
		}
	}
}

// The double the environment runs is configured from the real lab's
// extender command line: the lab's client rate, lock timeout and policies
// reach it, with HAMi's registration and throttling on.
func TestDoubleRunsTheLabsHAMiArguments(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t)
	skipUnlessDouble(t, e)
	for _, tn := range e.Tenants() {
		st, err := e.Double(tn).State()
		if err != nil {
			t.Fatal(err)
		}
		cfg := st.Config
		l := e.Lab()
		checks := []struct {
			what      string
			got, want any
		}{
			{"kube QPS", cfg.KubeQPS, float32(l.HAMi.KubeQPS)},
			{"kube burst", cfg.KubeBurst, l.HAMi.KubeBurst},
			{"node lock timeout", cfg.NodeLockTimeout, l.NodeLockTimeoutDuration()},
			{"gpu policy", cfg.GPUPolicy, "spread"},
			{"node policy", cfg.NodePolicy, "binpack"},
			{"register interval", cfg.RegisterInterval, hamidouble.DefaultRegisterInterval},
			{"register instantly", cfg.RegisterInstantly, false},
			{"split count", cfg.DeviceSplitCount, l.HAMi.SplitCount},
			{"throttled client", st.Throttled, true},
		}
		for _, c := range checks {
			if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
				t.Errorf("%s: double's %s = %v, want %v", tn, c.what, c.got, c.want)
			}
		}
	}
}

// HAMi registers a node's cards at once only for a Node added after HAMi
// has started: node adds that arrive while its informers first sync are
// dropped, since RegisterFromNodeAnnotations skips every notification until
// Start has set its started flag (pkg/scheduler/scheduler.go@v2.10.0), and
// those nodes wait for the 15 s tick. HAMi listens only after Start returns
// (cmd/scheduler/main.go@v2.10.0), and the double does the same. So the
// workers must be created after HAMi listens. Observed with the real HAMi
// v2.10.0 binary (2026-12-01): cards registered 0.4–0.8 s after HAMi's loop
// started with the workers created after it, 15.0 s with them created
// alongside it. The shared environment's registration deadline, below the
// tick (registerWhenAdded), fails its start when the workers came too
// early; it never waits for the tick otherwise. With $GPU_LAB_HAMI_BINARY
// this runs against that binary.
func TestWorkersRegisterWhenAdded(t *testing.T) {
	t.Parallel()
	e := sharedEnv(t) // fails, naming the cards HAMi lacks, when they waited for the tick
	if e.registrationTimeout != registerOnAddTimeout {
		t.Fatalf("the shared environment started with a registration deadline of %s, want %s (below HAMi's %s tick)",
			e.registrationTimeout, registerOnAddTimeout, hamidouble.DefaultRegisterInterval)
	}
	t.Logf("%d tenants' cards registered within %s of their workers; environment up in %s",
		len(e.Tenants()), registerOnAddTimeout, e.BootTime().Round(time.Millisecond))
}

// registerOnAddTimeout is the shared environment's registration deadline:
// half of HAMi's registration tick.
const registerOnAddTimeout = hamidouble.DefaultRegisterInterval / 2

// registerWhenAdded gives the shared environment registerOnAddTimeout
// (TestWorkersRegisterWhenAdded), so no environment of its own is booted
// to show it.
func registerWhenAdded(opts Options, _ string) (Options, error) {
	opts.RegistrationTimeout = registerOnAddTimeout
	return opts, nil
}
