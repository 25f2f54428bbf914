package testenv

import (
	"context"
	"testing"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

// An environment comes up although other processes take its ports: the
// first port proposed to each component is taken before the component
// binds it (so every component must move), and meanwhile a loop binds and
// releases hundreds of ephemeral ports on loopback, as a busy machine does.
func TestStartSurvivesTakenPorts(t *testing.T) {
	requireProcesses(t)
	bins := binaries(t)
	l, err := lab.Parse([]byte("name: contention\ntenants:\n- name: solo\n  workers:\n  - name: w1\n    gpus: [{model: T4, count: 1}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	// etcd takes 2 ports, the tenant 9: all of them are taken first.
	s := &squatter{first: 2 + 9}
	s.churn(500)
	e, err := Start(context.Background(), l, Options{BinDir: bins, Log: progress(), keepPort: s.keep})
	s.close()
	if err != nil {
		t.Fatalf("Start with contended ports: %v", err)
	}
	t.Cleanup(func() { _ = e.Stop() })
	t.Logf("squatter: %d ephemeral binds while the environment started; rebinds %v", s.binds, e.Rebinds())

	rebinds := e.Rebinds()
	for _, c := range []string{"etcd", "solo/konnectivity-server", "solo/kube-apiserver", "solo/konnectivity-agent",
		"solo/kube-scheduler", "solo/kube-controller-manager", "solo/kwok"} {
		if rebinds[c] < 1 {
			t.Errorf("%s was never moved off a taken port (rebinds %v)", c, rebinds)
		}
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
