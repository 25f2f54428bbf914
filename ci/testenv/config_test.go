package testenv

import (
	"reflect"
	"testing"

	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpu-lab/gpu-lab/ci/lab"
	"github.com/gpu-lab/gpu-lab/ci/render"
)

// The local kube-scheduler runs the configuration the real lab puts into
// HAMi's chart: decoded, the two differ only in where things are (extender
// URL, kubeconfig) and in the default profile this scheduler adds.
func TestSchedulerConfigIsTheRealLabsOne(t *testing.T) {
	l := lab.Default()
	decode := func(raw []byte) schedv1.KubeSchedulerConfiguration {
		t.Helper()
		var cfg schedv1.KubeSchedulerConfiguration
		if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
			t.Fatalf("decode: %v\n%s", err, raw)
		}
		return cfg
	}
	tn := &tenant{env: &Env{lab: l}, dir: "/k", hamiPort: 4711, metricsPort: 4712}
	localRaw, err := schedulerConfig(l, tn.hamiPlace())
	if err != nil {
		t.Fatal(err)
	}
	realRaw, err := render.HAMiSchedulerConfig(l, render.ChartPlace())
	if err != nil {
		t.Fatal(err)
	}
	local, real := decode([]byte(localRaw)), decode(realRaw)
	if got := local.Extenders[0].URLPrefix; got != "https://127.0.0.1:4711" {
		t.Errorf("local extender URL = %s", got)
	}
	if got := local.ClientConnection.Kubeconfig; got != "/k/scheduler.kubeconfig" {
		t.Errorf("local kubeconfig = %s", got)
	}
	if len(local.Profiles) != 2 || *local.Profiles[0].SchedulerName != "default-scheduler" {
		t.Errorf("local profiles = %+v, want default-scheduler first", local.Profiles)
	}
	// Put the place-dependent fields back: what is left must be identical.
	local.Extenders[0].URLPrefix = real.Extenders[0].URLPrefix
	local.ClientConnection.Kubeconfig = real.ClientConnection.Kubeconfig
	local.Profiles = local.Profiles[1:]
	if !reflect.DeepEqual(real, local) {
		a, _ := yaml.Marshal(real)
		b, _ := yaml.Marshal(local)
		t.Errorf("local scheduler config differs from the real lab's beyond its place:\nreal:\n%s\nlocal, place fields reset:\n%s", a, b)
	}
	if *local.PodMaxBackoffSeconds != int64(l.HAMi.PodMaxBackoffSeconds) {
		t.Errorf("podMaxBackoffSeconds = %d, want the lab's %d", *local.PodMaxBackoffSeconds, l.HAMi.PodMaxBackoffSeconds)
	}
}
