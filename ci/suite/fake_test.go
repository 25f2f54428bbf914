package suite

import (
	"log/slog"

	"k8s.io/apimachinery/pkg/runtime"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/gpu-lab/gpu-lab/ci/lab"
)

func tenantsConfigs(names ...string) map[string]*rest.Config {
	out := map[string]*rest.Config{}
	for _, n := range names {
		out[n] = &rest.Config{Host: "https://" + n + ".invalid"}
	}
	return out
}

// fakeRunner is a runner on fake clientsets, one per default-lab tenant.
func fakeRunner(objs map[string][]runtime.Object) (*runner, map[string]*fake.Clientset) {
	l := lab.Default()
	fakes := map[string]*fake.Clientset{}
	clients := map[string]kubernetes.Interface{}
	for _, tn := range l.TenantNames() {
		// The simple clientset lists without resource versions, so waits use a plain watch.
		f := fake.NewSimpleClientset(objs[tn]...) //nolint:staticcheck
		fakes[tn], clients[tn] = f, f
	}
	r := &runner{
		cfg:     Config{Lab: l, Tenants: tenantsConfigs(l.TenantNames()...), Image: DefaultImage},
		tm:      Timeouts{}.withDefaults(),
		log:     slog.New(slog.DiscardHandler),
		clients: clients,
		runID:   "test1",
	}
	return r, fakes
}
