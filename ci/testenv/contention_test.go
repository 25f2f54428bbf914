package testenv

import (
	"testing"
	"time"
)

// squatted is what the squatter did while the solo environment started.
var squatted struct {
	binds int
	// untaken counts the first proposals it was ready to take but never
	// saw: not zero, fewer ports were proposed than etcdPorts+tenantPorts.
	untaken int
}

// withTakenPorts starts an environment while other processes take its
// ports: the first port proposed to each component is taken before the
// component binds it (so every component must move), and meanwhile a loop
// binds and releases ephemeral ports on loopback, as a busy machine does.
func withTakenPorts(start func(Options) (*Env, error), opts Options) (*Env, error) {
	// Every port first proposed to etcd and to the one tenant is taken,
	// whatever order they are proposed in: etcd and the tenant start at
	// once. (Taking only some of them, the first ones proposed, left etcd
	// unmoved when the tenant happened to propose first.)
	s := &squatter{first: etcdPorts + tenantPorts}
	s.churn(500, churnEvery)
	opts.keepPort = s.keep
	e, err := start(opts)
	s.close()
	squatted.binds = s.binds
	s.mu.Lock()
	squatted.untaken = s.first
	s.mu.Unlock()
	return e, err
}

// churnEvery paces the squatter's loop: about a thousand binds a second
// take ports from under the components without taking a CPU from the
// machine, which the other packages' environments boot on meanwhile.
const churnEvery = time.Millisecond

// checkEveryComponentMoved holds that an environment comes up although
// other processes take its ports (withTakenPorts): every component was
// moved off a taken port, and the moved API server is what clients reach.
// (KWOK listens on no port — startKWOK — so there is none to take from it.)
func checkEveryComponentMoved(t *testing.T, e *Env) {
	rebinds := e.rebindCounts()
	t.Logf("squatter: %d ephemeral binds while the environment started; rebinds %v", squatted.binds, rebinds)
	for _, c := range []string{"etcd", "solo/konnectivity-server", "solo/kube-apiserver", "solo/konnectivity-agent",
		"solo/kube-scheduler", "solo/kube-controller-manager", "solo/hami-scheduler"} {
		if rebinds[c] < 1 {
			t.Errorf("%s was never moved off a taken port (rebinds %v)", c, rebinds)
		}
	}
	if squatted.untaken != 0 {
		t.Errorf("%d of the %d first proposals etcdPorts+tenantPorts count were never made: the constants no longer match the ports "+
			"Start proposes", squatted.untaken, etcdPorts+tenantPorts)
	}
	if err := e.Err(); err != nil {
		t.Errorf("environment after start: %v", err)
	}
	// The moved API server is what every client reaches.
	v, err := client(t, e, "solo").Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("API server through the rewritten kubeconfig: %v", err)
	}
	if v.GitVersion != KubernetesVersion {
		t.Errorf("server version %s, want %s", v.GitVersion, KubernetesVersion)
	}
}
